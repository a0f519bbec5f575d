//! Unguessable identifiers (sessions, tasks) and hex text.

/// 32 bytes from the OS CSPRNG, as 64 lowercase hex digits.
pub(crate) fn random_id() -> String {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).expect("the OS random number generator is available");
    let mut text = [0u8; 64];
    hex_into(&bytes, &mut text);
    String::from_utf8(text.to_vec()).expect("hex digits are ASCII")
}

/// `bytes` as lowercase hex digits.
pub(crate) fn hex(bytes: &[u8]) -> String {
    let mut text = vec![0; bytes.len() * 2];
    hex_into(bytes, &mut text);
    String::from_utf8(text).expect("hex digits are ASCII")
}

/// Writes `bytes` as hex digits into `out`, which is twice as long. Filling bytes and checking
/// UTF-8 once is a few times cheaper than `String::push`, which checks capacity and encodes
/// every character.
fn hex_into(bytes: &[u8], out: &mut [u8]) {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    for (pair, &b) in out.chunks_exact_mut(2).zip(bytes) {
        pair[0] = DIGITS[usize::from(b >> 4)];
        pair[1] = DIGITS[usize::from(b & 0x0f)];
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_digits() {
        assert_eq!(hex(&[0x00, 0x0f, 0xa5, 0xff]), "000fa5ff");
        let id = random_id();
        assert_eq!(id.len(), 64);
        assert!(id
            .bytes()
            .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase()));
        assert_ne!(id, random_id());
    }
}

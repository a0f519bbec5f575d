//! Unguessable identifiers (sessions, tasks) and hex text.

use std::cell::RefCell;

/// 32 bytes from the OS CSPRNG, as 64 lowercase hex digits.
pub(crate) fn random_id() -> String {
    let mut bytes = [0u8; 32];
    random_bytes(&mut bytes);
    let mut text = [0u8; 64];
    hex_into(&bytes, &mut text);
    String::from_utf8(text.to_vec()).expect("hex digits are ASCII")
}

/// Whether `id` has the form [`random_id`] gives (64 lowercase hex digits): one that does not
/// was never issued here, and no store needs to be asked for it.
pub(crate) fn is_random_id(id: &str) -> bool {
    id.len() == 64 && id.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// The bus address of the instance that minted the request id `id` (`s{n}.{address}.{tag}`,
/// a shared session's id for a request it sends the client), if it names one. Unverified: call
/// it on ids the session's key accepted.
#[cfg_attr(not(feature = "redis"), allow(dead_code))] // what a shared store (`stores::redis`) uses
pub(crate) fn minted_address(id: &str) -> Option<&str> {
    let mut parts = id.strip_prefix('s')?.split('.');
    let (_number, address, _tag) = (parts.next()?, parts.next()?, parts.next()?);
    (parts.next().is_none() && !address.is_empty()).then_some(address)
}

/// What the logs say instead of a secret id (a session or task id is a bearer credential): the
/// first 8 hex digits of its SHA-256, enough to follow one id through the logs, useless to
/// replay it.
pub(crate) fn fingerprint(id: &str) -> String {
    use sha2::{Digest, Sha256};
    let digest = Sha256::digest(id.as_bytes());
    let mut text = [0u8; 8];
    hex_into(&digest[..4], &mut text);
    String::from_utf8(text.to_vec()).expect("hex digits are ASCII")
}

/// How many bytes one call to the OS fetches for later ids: 128 session ids.
const POOL_SIZE: usize = 4096;

/// Bytes from the OS CSPRNG, fetched [`POOL_SIZE`] at a time per thread.
struct RandomPool {
    bytes: [u8; POOL_SIZE],
    /// Bytes before this index were handed out (and wiped).
    used: usize,
}

thread_local! {
    static POOL: RefCell<RandomPool> = const {
        RefCell::new(RandomPool { bytes: [0; POOL_SIZE], used: POOL_SIZE })
    };
}

/// Fills `out` with bytes from the OS CSPRNG. They come from a per-thread pool that one
/// `getrandom` call refills: a system call per session id cost more than the rest of creating
/// the session. Every byte is handed out once and wiped from the pool when it is.
pub(crate) fn random_bytes(out: &mut [u8]) {
    if out.len() > POOL_SIZE / 4 {
        getrandom::fill(out).expect("the OS random number generator is available");
        return;
    }
    POOL.with_borrow_mut(|pool| {
        if POOL_SIZE - pool.used < out.len() {
            getrandom::fill(&mut pool.bytes).expect("the OS random number generator is available");
            pool.used = 0;
        }
        let taken = &mut pool.bytes[pool.used..pool.used + out.len()];
        out.copy_from_slice(taken);
        taken.fill(0);
        pool.used += out.len();
    });
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
    fn only_ids_of_the_issued_form_are_looked_up() {
        assert!(is_random_id(&random_id()));
        for id in [
            "",
            "abc",
            &"A".repeat(64),
            &"g".repeat(64),
            &"0".repeat(65),
            &"x".repeat(1 << 20),
        ] {
            assert!(!is_random_id(id), "{}", id.len());
        }
    }

    #[test]
    fn a_fingerprint_names_an_id_without_giving_it_away() {
        let id = random_id();
        let print = fingerprint(&id);
        assert_eq!(print.len(), 8);
        assert_eq!(print, fingerprint(&id));
        assert!(!id.contains(&print) || id.len() == print.len());
        assert_ne!(print, fingerprint(&random_id()));
    }

    #[test]
    fn random_bytes_are_never_handed_out_twice() {
        let mut seen = std::collections::HashSet::new();
        // Several refills of the pool, and a request larger than the pool serves.
        for _ in 0..3 * POOL_SIZE / 32 {
            let mut id = [0u8; 32];
            random_bytes(&mut id);
            assert!(seen.insert(id), "a repeated id");
        }
        let mut big = [0u8; POOL_SIZE];
        random_bytes(&mut big);
        assert!(big.iter().any(|&b| b != 0));
        assert_eq!(random_id().len(), 64);
    }

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

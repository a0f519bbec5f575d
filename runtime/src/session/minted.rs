//! Server-to-client request ids that prove where they came from.
//!
//! A client's answer to a request its session's instance does not wait for is published on the
//! bus, for the instance that sent the request (several instances share a session). Without a
//! check, any POSTed response (up to the body limit) would be broadcast to every instance. The
//! ids a shared session mints therefore carry a tag: `s{n}.{tag}`, the tag being the first 8
//! bytes of HMAC-SHA256(`n`) under a key of the session's own, kept in its shared record and
//! never sent to the client. An answer whose id does not verify was never asked for by any
//! instance, and is dropped where it arrived.
//!
//! An instance with an address on the bus ([`Bus::address`](crate::bus::Bus::address)) puts it
//! in the ids it mints, `s{n}.{address}.{tag}` (the tag then covers `{n}.{address}`): the answer
//! is published for that instance alone ([`minted_address`](crate::ids::minted_address)), not for every instance.

use hmac::{Hmac, Mac};
use sha2::Sha256;

type HmacSha256 = Hmac<Sha256>;

/// The tag's length in bytes (16 hex digits on the wire): enough that guessing one is hopeless
/// for the few requests a session ever sends.
const TAG_BYTES: usize = 8;

/// The longest bus address an id may carry (an instance's is 32 hex digits).
const MAX_ADDRESS: usize = 64;

/// A shared session's key for its request ids.
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct MintKey([u8; 32]);

impl std::fmt::Debug for MintKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("MintKey(..)")
    }
}

#[cfg_attr(not(feature = "redis"), allow(dead_code))] // what a shared store (`stores::redis`) uses
impl MintKey {
    /// A fresh key from the OS CSPRNG.
    pub(crate) fn random() -> Self {
        let mut key = [0u8; 32];
        crate::ids::random_bytes(&mut key);
        Self(key)
    }

    /// The key as a shared record keeps it (64 hex digits).
    pub(crate) fn to_hex(&self) -> String {
        crate::ids::hex(&self.0)
    }

    /// The key a record kept; `None` for text that is not 64 hex digits.
    pub(crate) fn from_hex(text: &str) -> Option<Self> {
        if text.len() != 64 {
            return None;
        }
        let mut key = [0u8; 32];
        for (byte, pair) in key.iter_mut().zip(text.as_bytes().chunks_exact(2)) {
            let digits = std::str::from_utf8(pair).ok()?;
            *byte = u8::from_str_radix(digits, 16).ok()?;
        }
        Some(Self(key))
    }

    /// The id of request number `n`, minted on the instance at bus `address` if it has one:
    /// `s{n}.{address}.{tag}`, else `s{n}.{tag}`.
    pub(crate) fn id(&self, n: u64, address: Option<&str>) -> String {
        let signed = match address {
            Some(address) => format!("{n}.{address}"),
            None => n.to_string(),
        };
        let tag = self.mac(signed.as_bytes());
        format!(
            "s{signed}.{}",
            crate::ids::hex(&tag.finalize().into_bytes()[..TAG_BYTES])
        )
    }

    /// Whether `id` is one [`MintKey::id`] made with this key (compared in constant time).
    pub(crate) fn minted(&self, id: &str) -> bool {
        let Some((signed, tag)) = id.strip_prefix('s').and_then(|rest| rest.rsplit_once('.'))
        else {
            return false;
        };
        let (number, address) = signed.split_once('.').unwrap_or((signed, ""));
        if number.is_empty() || number.len() > 20 || !number.bytes().all(|b| b.is_ascii_digit()) {
            return false;
        }
        if address.len() > MAX_ADDRESS || !address.bytes().all(|b| b.is_ascii_alphanumeric()) {
            return false;
        }
        let Some(tag) = MintKey::from_hex_tag(tag) else {
            return false;
        };
        self.mac(signed.as_bytes())
            .verify_truncated_left(&tag)
            .is_ok()
    }

    fn mac(&self, data: &[u8]) -> HmacSha256 {
        let mut mac = HmacSha256::new_from_slice(&self.0).expect("HMAC takes any key");
        mac.update(data);
        mac
    }

    fn from_hex_tag(text: &str) -> Option<[u8; TAG_BYTES]> {
        if text.len() != 2 * TAG_BYTES {
            return None;
        }
        let mut tag = [0u8; TAG_BYTES];
        for (byte, pair) in tag.iter_mut().zip(text.as_bytes().chunks_exact(2)) {
            *byte = u8::from_str_radix(std::str::from_utf8(pair).ok()?, 16).ok()?;
        }
        Some(tag)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_ids_minted_with_the_key_verify() {
        let key = MintKey::random();
        let id = key.id(42, None);
        assert!(id.starts_with("s42."), "{id}");
        assert_eq!(crate::ids::minted_address(&id), None);
        assert_eq!(id.len(), "s42.".len() + 16);
        assert!(key.minted(&id));
        assert!(!MintKey::random().minted(&id), "another session's key");
        let forged = format!("s43{}", &id[3..]);
        assert!(!key.minted(&forged), "the tag covers the number");
        for bad in [
            "",
            "s",
            "s1",
            "s1.",
            "x1.0000000000000000",
            "s.0000000000000000",
        ] {
            assert!(!key.minted(bad), "{bad:?}");
        }
        assert!(!key.minted(&format!("{id}0")));
        assert!(!key.minted(&"s1.".repeat(100_000)));
    }

    #[test]
    fn an_id_names_the_instance_that_minted_it_and_the_tag_covers_it() {
        let key = MintKey::random();
        let id = key.id(7, Some("a1b2"));
        assert!(id.starts_with("s7.a1b2."), "{id}");
        assert!(key.minted(&id));
        assert_eq!(crate::ids::minted_address(&id), Some("a1b2"));
        // Another address, the same tag: refused (an answer cannot be steered elsewhere).
        let steered = id.replacen("a1b2", "c3d4", 1);
        assert!(!key.minted(&steered), "{steered}");
        let dropped = id.replacen(".a1b2", "", 1);
        assert!(!key.minted(&dropped), "{dropped}");
        assert!(!key.minted(&format!("s7.{}.{}", "a".repeat(65), &id[id.len() - 16..])));
        assert!(!key.minted("s7.a-b.0000000000000000"));
    }

    #[test]
    fn the_key_travels_as_hex() {
        let key = MintKey::random();
        assert_eq!(MintKey::from_hex(&key.to_hex()), Some(key.clone()));
        assert_eq!(MintKey::from_hex("00"), None);
        assert_eq!(MintKey::from_hex(&"g".repeat(64)), None);
        assert_eq!(format!("{key:?}"), "MintKey(..)");
    }
}

//! Connections per peer address ([`config.limits.max_connections_per_peer`]): the global cap keeps
//! the process within its file descriptors, this one keeps a single client from taking every
//! place under it.
//!
//! Counted once per connection (a lock and a hash lookup at accept and at close), never per
//! request.
//!
//! [`config.limits.max_connections_per_peer`]: crate::config::Limits::max_connections_per_peer

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};

/// The peer an address stands for: an IPv6 address cut to its first `prefix` bits (one host
/// commonly holds a whole /64: [`crate::config::Limits::ipv6_peer_prefix`]), an IPv4 address
/// (or an IPv4-mapped IPv6 one) whole. The per-peer connection cap and the rate limits'
/// per-address buckets count this.
pub(crate) fn peer_of(ip: IpAddr, prefix: u8) -> IpAddr {
    match ip {
        IpAddr::V4(_) => ip,
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => {
                let bits = u128::from(v6);
                let kept = match prefix.min(128) {
                    0 => 0,
                    n => bits & (u128::MAX << (128 - u32::from(n))),
                };
                IpAddr::V6(kept.into())
            }
        },
    }
}

/// Open connections by peer address.
#[derive(Debug)]
pub(super) struct Peers {
    open: Mutex<HashMap<IpAddr, u32>>,
    max: u32,
}

/// One open connection of a peer; dropping it gives the place back.
#[derive(Debug)]
pub(super) struct PeerPlace {
    peers: Arc<Peers>,
    peer: IpAddr,
}

impl Peers {
    /// At most `max` connections per address (at least one).
    pub(super) fn new(max: usize) -> Arc<Self> {
        Arc::new(Self {
            open: Mutex::new(HashMap::new()),
            max: u32::try_from(max.max(1)).unwrap_or(u32::MAX),
        })
    }

    /// A place for one more connection from `peer`; `None` when it holds its maximum.
    pub(super) fn admit(self: &Arc<Self>, peer: IpAddr) -> Option<PeerPlace> {
        let mut open = self.lock();
        let count = open.entry(peer).or_insert(0);
        if *count >= self.max {
            return None;
        }
        *count += 1;
        Some(PeerPlace {
            peers: self.clone(),
            peer,
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<IpAddr, u32>> {
        self.open
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

impl Drop for PeerPlace {
    fn drop(&mut self) {
        let mut open = self.peers.lock();
        if let Some(count) = open.get_mut(&self.peer) {
            *count -= 1;
            if *count == 0 {
                // An address with nothing open holds no memory.
                open.remove(&self.peer);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_ipv6_prefix_is_one_peer() {
        let ip = |text: &str| text.parse::<IpAddr>().unwrap();
        let cut = |text: &str, bits| peer_of(ip(text), bits);
        assert_eq!(cut("2001:db8:1:2:aaaa::1", 64), ip("2001:db8:1:2::"));
        assert_eq!(cut("2001:db8:1:2:ffff::9", 64), cut("2001:db8:1:2::1", 64));
        assert_ne!(cut("2001:db8:1:3::1", 64), cut("2001:db8:1:2::1", 64));
        assert_eq!(cut("2001:db8::1", 128), ip("2001:db8::1"));
        assert_eq!(cut("192.0.2.7", 64), ip("192.0.2.7"));
        assert_eq!(cut("::ffff:192.0.2.7", 64), ip("192.0.2.7"));
        // One /64 holds at most the cap, whatever the addresses.
        let peers = Peers::new(2);
        let places: Vec<_> = (1..=3)
            .filter_map(|i| peers.admit(cut(&format!("2001:db8:1:2::{i}"), 64)))
            .collect();
        assert_eq!(places.len(), 2);
    }

    #[test]
    fn each_address_has_its_own_places() {
        let peers = Peers::new(2);
        let a: IpAddr = "192.0.2.1".parse().unwrap();
        let b: IpAddr = "2001:db8::1".parse().unwrap();
        let first = peers.admit(a).unwrap();
        let _second = peers.admit(a).unwrap();
        assert!(peers.admit(a).is_none(), "a third from one address");
        assert!(peers.admit(b).is_some(), "another address is not affected");
        drop(first);
        let _again = peers.admit(a).expect("a place came back");
        drop(_again);
        drop(_second);
        assert!(
            peers.lock().get(&a).is_none(),
            "nothing kept for an idle address"
        );
    }
}

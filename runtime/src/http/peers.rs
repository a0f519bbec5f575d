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

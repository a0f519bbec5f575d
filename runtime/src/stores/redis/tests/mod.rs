//! The Redis stores against a real `redis-server` (`harness`: started on a free 127.0.0.1
//! port for each test and stopped at its end; CI installs it: `apt-get install redis-server`),
//! and the parts that need none.
//!
//! - `shared`: two instances sharing tasks, sessions, the bus and the event log through one
//!   Redis, and what happens when it stops;
//! - `fanout` (ignored; `-- --ignored --nocapture` prints the table of BENCHMARKS.md, "Past one
//!   Redis"): what a message between instances costs Redis when 100 instances share it.

/// The tests' `redis-server`, shared with the integration tests (`runtime/tests/common`).
#[allow(dead_code)]
#[path = "../../../../tests/common/redis.rs"]
pub(super) mod harness;

mod fanout;
mod shared;

use super::*;

#[test]
fn buckets_spread_ids_and_share_the_bound() {
    let small = Buckets::new('s', 100);
    assert_eq!((small.count(), small.bound()), (1, 100));
    assert_eq!(small.tag("anything"), "{s0}");
    let large = Buckets::new('t', 10_000);
    assert_eq!((large.count(), large.bound()), (16, 625));
    let mut seen = [0usize; 16];
    for i in 0..16_000 {
        let tag = large.tag(&format!("{i:032x}"));
        let n: usize = tag[2..tag.len() - 1].parse().unwrap();
        seen[n] += 1;
    }
    assert!(seen.iter().all(|&n| (850..1150).contains(&n)), "{seen:?}");
    assert_eq!(Buckets::new('s', 100_000).bound(), 6_250);
    assert_eq!(Buckets::new('s', 1_000).count(), 15);
}

#[test]
fn passwords_stay_out_of_messages() {
    assert_eq!(
        without_password("redis://:secret@h:6379/0"),
        "redis://:***@h:6379/0"
    );
    assert_eq!(
        without_password("redis://user:secret@h:6379"),
        "redis://user:***@h:6379"
    );
    assert_eq!(without_password("redis://token@h"), "redis://***@h");
    assert_eq!(
        without_password("redis://127.0.0.1:6379/"),
        "redis://127.0.0.1:6379/"
    );
}

use super::*;
use std::sync::Arc;

fn session() -> Arc<Session> {
    Arc::new(Session::new(
        ProtocolVersion::V2025_11_25,
        Value::Null,
        Value::Null,
        SessionLimits {
            replay_window: 8,
            buffered_messages: 8,
            max_subscriptions: 2,
            max_subscription_bytes: 16,
            max_running: 2,
            max_pending_client_requests: 2,
            max_lifetime: Some(Duration::from_millis(200)),
        },
    ))
}

#[test]
fn ids_are_random_visible_ascii() {
    let (a, b) = (session(), session());
    assert_ne!(a.id(), b.id());
    assert_eq!(a.id().len(), 64);
    assert!(a.id().bytes().all(|c| (0x21..=0x7e).contains(&c)));
}

#[test]
fn store_is_bounded_and_evicts_idle_sessions() {
    let store = MemorySessionStore::new(2);
    let (a, b) = (session(), session());
    store.insert(a.clone()).unwrap();
    store.insert(b.clone()).unwrap();
    assert_eq!(store.insert(session()), Err(StoreError::Full));
    assert!(store.get(a.id()).is_some());
    std::thread::sleep(Duration::from_millis(30));
    b.touch();
    assert_eq!(store.evict_expired(Some(Duration::from_millis(20))), 1);
    assert!(store.get(a.id()).is_none());
    assert!(store.get(b.id()).is_some());
    assert!(store.remove(b.id()).is_some());
    assert!(store.remove(b.id()).is_none());
    assert_eq!(store.len(), 0);
}

#[test]
fn client_requests_are_matched_by_id() {
    let s = session();
    let (id, mut rx) = s.register_client_request().unwrap();
    assert!(!s.answer_client_request("other", Err(Value::Null)));
    assert!(s.answer_client_request(&id, Ok(RawValue::from_string("{}".into()).unwrap())));
    assert_eq!(rx.try_recv().unwrap().unwrap().get(), "{}");
}

#[test]
fn subscriptions_and_pending_client_requests_are_bounded() {
    let s = session();
    assert_eq!(s.subscribe("a://1"), Ok(()));
    assert_eq!(s.subscribe("a://2"), Ok(()));
    assert_eq!(s.subscribe("a://2"), Ok(()), "again: no new entry");
    assert_eq!(s.subscribe("a://3"), Err(Full));
    s.unsubscribe("a://2");
    // 16 bytes of URIs at most: 5 held, 12 more is over, 11 fits.
    assert_eq!(s.subscribe("a://01234567"), Err(Full));
    assert_eq!(s.subscribe("a://0123456"), Ok(()));
    s.unsubscribe("a://0123456");
    s.subscribe("a://2").unwrap();
    s.unsubscribe("a://1");
    assert_eq!(s.subscribe("a://3"), Ok(()));
    let first = s.register_client_request().unwrap();
    let _second = s.register_client_request().unwrap();
    assert!(s.register_client_request().is_err());
    s.forget_client_request(&first.0);
    assert!(s.register_client_request().is_ok());
}

#[test]
fn a_request_longer_than_the_idle_timeout_leaves_a_whole_timeout_after_it() {
    let store = MemorySessionStore::new(4);
    let s = session();
    store.insert(s.clone()).unwrap();
    s.track("1", || {}).unwrap();
    assert_eq!(
        s.track("1", || {}),
        Err(NotAdmitted::IdInUse),
        "an id still running"
    );
    assert_eq!(s.admits("1"), Err(NotAdmitted::IdInUse));
    s.track("2", || {}).unwrap();
    assert_eq!(s.admits("3"), Err(NotAdmitted::Busy(2)), "two at most");
    assert_eq!(s.track("3", || {}), Err(NotAdmitted::Busy(2)));
    s.untrack("2");
    std::thread::sleep(Duration::from_millis(60));
    assert_eq!(
        store.evict_expired(Some(Duration::from_millis(40))),
        0,
        "busy"
    );
    s.untrack("1");
    assert_eq!(
        store.evict_expired(Some(Duration::from_millis(40))),
        0,
        "the sweep that saw it busy counts as its last use"
    );
    assert!(store.get(s.id()).is_some());
}

#[test]
fn a_session_ends_at_its_lifetime_however_busy() {
    let store = MemorySessionStore::new(4);
    let s = session();
    store.insert(s.clone()).unwrap();
    assert!(store.get(s.id()).is_some());
    std::thread::sleep(Duration::from_millis(120));
    assert!(store.get(s.id()).is_some(), "used: not idle");
    std::thread::sleep(Duration::from_millis(120));
    assert!(store.get(s.id()).is_none(), "past its 200 ms lifetime");
    assert_eq!(store.len(), 0);
    let t = session();
    store.insert(t.clone()).unwrap();
    std::thread::sleep(Duration::from_millis(220));
    assert_eq!(store.evict_expired(None), 1, "the sweep ends it too");
}

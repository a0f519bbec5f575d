use super::*;
use serde_json::json;

#[test]
fn a_key_is_random_bytes_as_hex_or_base64_never_a_passphrase() {
    let hex = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";
    assert_eq!(SealingKey::from_text(hex).unwrap().0.len(), 32);
    assert_eq!(
        SealingKey::from_text(&format!(" {} \n", hex.to_uppercase()))
            .unwrap()
            .0,
        SealingKey::from_text(hex).unwrap().0
    );
    let base64 = "ABEiM0RVZneImaq7zN3u/wARIjNEVWZ3iJmqu8zd7v8=";
    assert_eq!(
        SealingKey::from_text(base64).unwrap().0,
        SealingKey::from_text(hex).unwrap().0
    );
    let url_safe = base64.replace('/', "_").replace('+', "-").replace('=', "");
    assert!(SealingKey::from_text(&url_safe).is_ok());
    let passphrase = "correct horse battery staple, and then some more words";
    assert!(SealingKey::from_text(passphrase)
        .unwrap_err()
        .to_string()
        .contains("a passphrase is not a key"));
    assert!(SealingKey::from_text("00112233")
        .unwrap_err()
        .to_string()
        .contains("at least 32"));
}

#[test]
fn key_errors_are_typed_and_display_the_old_messages() {
    let error = SealingKey::new(*b"short").unwrap_err();
    assert_eq!(error, KeyError::TooShort { len: 5 });
    assert_eq!(
        error.to_string(),
        "the requestState key must be at least 32 bytes, got 5"
    );
    let error = SealingKey::from_text("00112233").unwrap_err();
    assert_eq!(error, KeyError::TooFewRandomBytes { len: 4 });
    assert_eq!(
        error.to_string(),
        "the requestState key must be at least 32 random bytes, got 4"
    );
    let error = SealingKey::from_text("not a key").unwrap_err();
    assert_eq!(error, KeyError::NotAKey);
    assert_eq!(
        error.to_string(),
        "the requestState key must be 32 or more random bytes written as hex or base64 (e.g. \
         `openssl rand -hex 32`); a passphrase is not a key"
    );
    let error = KeyError::Variable {
        name: KEY_ENV,
        error: Box::new(KeyError::TooFewRandomBytes { len: 4 }),
    };
    assert_eq!(
        error.to_string(),
        format!("{KEY_ENV}: the requestState key must be at least 32 random bytes, got 4")
    );
}

fn sealer() -> StateSealer {
    StateSealer::new(
        SealingKey::new(*b"0123456789abcdef0123456789abcdef").unwrap(),
        Duration::from_secs(60),
    )
}

fn payload() -> StatePayload {
    let mut payload = StatePayload::default();
    payload
        .answers
        .insert("name".into(), json!({"action": "accept"}));
    payload.saved.insert("step".into(), json!(2));
    payload
}

#[test]
fn short_keys_are_refused() {
    assert!(SealingKey::new(*b"short").is_err());
}

#[test]
fn round_trip() {
    let binding = Binding::new("tools/call", "t", Some(&json!({"a": 1})));
    let state = sealer().seal(binding, payload());
    assert_eq!(sealer().open(&state, binding), Ok(payload()));
}

#[test]
fn two_seals_differ() {
    let binding = Binding::new("tools/call", "t", None);
    assert_ne!(
        sealer().seal(binding, payload()),
        sealer().seal(binding, payload())
    );
}

#[test]
fn canonical_arguments() {
    let a: Value = serde_json::from_str(r#"{"x":1,"y":{"b":2,"a":[1,{"d":0,"c":1}]}}"#).unwrap();
    let b: Value = serde_json::from_str(r#"{"y":{"a":[1,{"c":1,"d":0}],"b":2},"x":1}"#).unwrap();
    assert_eq!(
        Binding::new("tools/call", "t", Some(&a)),
        Binding::new("tools/call", "t", Some(&b))
    );
}

#[test]
fn tampered_states_are_refused() {
    let binding = Binding::new("tools/call", "t", None);
    let state = sealer().seal(binding, payload());
    for bad in [
        format!("{state}-TAMPERED"),
        state.replacen('e', "f", 1),
        state.split('.').next().unwrap().to_string(),
        String::new(),
        "not.base64!".into(),
    ] {
        assert_eq!(
            sealer().open(&bad, binding),
            Err(StateError::Tampered),
            "{bad}"
        );
    }
    let other_key = StateSealer::new(SealingKey::random(), Duration::from_secs(60));
    assert_eq!(other_key.open(&state, binding), Err(StateError::Tampered));
}

#[test]
fn expired_states_are_refused() {
    let binding = Binding::new("tools/call", "t", None);
    let state = sealer().seal_at(binding, payload(), 1_000);
    assert_eq!(
        sealer().open_at(&state, binding, 1_000 + 60_000),
        Err(StateError::Expired)
    );
    assert!(sealer().open_at(&state, binding, 1_000 + 59_999).is_ok());
}

#[test]
fn states_do_not_move_to_other_requests() {
    let binding = Binding::new("tools/call", "t", Some(&json!({"a": 1})));
    let state = sealer().seal(binding, payload());
    for other in [
        Binding::new("tools/call", "t", Some(&json!({"a": 2}))),
        Binding::new("tools/call", "u", Some(&json!({"a": 1}))),
        Binding::new("prompts/get", "t", Some(&json!({"a": 1}))),
        binding.owned_by("issuer\nalice"),
    ] {
        assert_eq!(sealer().open(&state, other), Err(StateError::Foreign));
    }
}

#[test]
fn states_do_not_move_to_other_principals() {
    let binding = Binding::new("tools/call", "t", None);
    let alice = binding.owned_by("issuer\nalice");
    let state = sealer().seal(alice, payload());
    assert_eq!(sealer().open(&state, alice), Ok(payload()));
    for other in [
        binding,
        binding.owned_by("issuer\nbob"),
        binding.owned_by("other\nalice"),
    ] {
        assert_eq!(sealer().open(&state, other), Err(StateError::Foreign));
    }
}

fn key(byte: u8) -> SealingKey {
    SealingKey::new(vec![byte; 32]).unwrap()
}

fn sealer_with(current: u8, previous: Option<u8>) -> StateSealer {
    StateSealer::new(key(current), Duration::from_secs(60)).with_previous(previous.map(key))
}

#[test]
fn a_rotated_key_still_opens_what_it_sealed_and_never_seals() {
    let binding = Binding::new("tools/call", "t", None);
    let by_a = sealer_with(b'a', None).seal(binding, payload());
    let rotated = sealer_with(b'b', Some(b'a'));
    assert_eq!(rotated.open(&by_a, binding), Ok(payload()));
    assert_eq!(
        sealer_with(b'b', None).open(&by_a, binding),
        Err(StateError::Tampered)
    );
    // New states are sealed with the current key: they open without the previous one.
    let by_rotated = rotated.seal(binding, payload());
    assert_eq!(
        sealer_with(b'b', None).open(&by_rotated, binding),
        Ok(payload())
    );
    assert_eq!(
        sealer_with(b'a', None).open(&by_rotated, binding),
        Err(StateError::Tampered)
    );
    // The previous key does not lift the other checks.
    assert_eq!(
        rotated.open(&by_a, Binding::new("tools/call", "u", None)),
        Err(StateError::Foreign)
    );
    let old = sealer_with(b'a', None).seal_at(binding, payload(), 1_000);
    assert_eq!(
        rotated.open_at(&old, binding, 61_000),
        Err(StateError::Expired)
    );
    // A previous key equal to the current one is dropped.
    assert!(sealer_with(b'a', Some(b'a')).previous.is_none());
}

#[test]
fn a_single_use_state_opens_once() {
    let binding = Binding::new("tools/call", "t", None);
    let sealer = sealer_with(b'b', Some(b'a')).single_use(true);
    let state = sealer.seal(binding, payload());
    assert_eq!(sealer.open(&state, binding), Ok(payload()));
    assert_eq!(sealer.open(&state, binding), Err(StateError::Redeemed));
    // So does one sealed with the previous key.
    let by_a = sealer_with(b'a', None).seal(binding, payload());
    assert_eq!(sealer.open(&by_a, binding), Ok(payload()));
    assert_eq!(sealer.open(&by_a, binding), Err(StateError::Redeemed));
    // A refused state is not remembered: tampering cannot use up a genuine one.
    let other = sealer.seal(binding, payload());
    let foreign = Binding::new("tools/call", "u", None);
    assert_eq!(sealer.open(&other, foreign), Err(StateError::Foreign));
    assert_eq!(sealer.open(&other, binding), Ok(payload()));
    // Without single use, a state opens as often as it is sent, until it expires.
    let replayable = sealer_with(b'b', None);
    let state = replayable.seal(binding, payload());
    assert!(replayable.open(&state, binding).is_ok());
    assert!(replayable.open(&state, binding).is_ok());
}

#[test]
fn redeemed_states_are_forgotten_when_they_expire_and_bounded() {
    let redeemed = Redeemed::new(2);
    assert_eq!(redeemed.redeem(100, [1; 32], None, 0), Ok(()));
    assert_eq!(
        redeemed.redeem(100, [1; 32], None, 50),
        Err(StateError::Redeemed)
    );
    assert_eq!(redeemed.redeem(200, [2; 32], None, 50), Ok(()));
    assert_eq!(
        redeemed.redeem(300, [3; 32], None, 50),
        Err(StateError::Busy)
    );
    // Past the first expiry, its entry makes room.
    assert_eq!(redeemed.redeem(300, [3; 32], None, 100), Ok(()));
    assert_eq!(redeemed.held.lock().unwrap().states.len(), 2);
    assert_eq!(StateError::Redeemed.into_rpc_error().code, -32602);
    assert_eq!(StateError::Busy.into_rpc_error().code, -32602);
}

#[test]
fn one_principal_takes_at_most_its_share_of_redeemed_states() {
    let redeemed = Redeemed::with_share(10, 2);
    let (alice, bob) = (Some([b'a'; 32]), Some([b'b'; 32]));
    assert_eq!(redeemed.redeem(100, [1; 32], alice, 0), Ok(()));
    assert_eq!(redeemed.redeem(100, [2; 32], alice, 0), Ok(()));
    assert_eq!(
        redeemed.redeem(100, [3; 32], alice, 0),
        Err(StateError::Busy),
        "alice holds her share"
    );
    assert_eq!(
        redeemed.redeem(100, [4; 32], bob, 0),
        Ok(()),
        "bob does not pay for it"
    );
    // Once alice's expire, her share is back.
    assert_eq!(redeemed.redeem(200, [5; 32], alice, 100), Ok(()));
    assert!(!redeemed
        .held
        .lock()
        .unwrap()
        .by_owner
        .contains_key(&[b'b'; 32]));
    // And the binding carries the owner of a state opened for a principal.
    let owned = Binding::new("tools/call", "t", None).owned_by("iss\nalice");
    assert!(owned.owner.is_some() && Binding::new("tools/call", "t", None).owner.is_none());
}

#[test]
fn a_random_key_warns_at_the_first_state_sealed_only() {
    crate::test_log::with_log(|log| {
        let log = || log.text();
        let random =
            StateSealer::new(SealingKey::random(), Duration::from_secs(60)).random_key(true);
        let given = sealer().random_key(false);
        let binding = Binding::new("tools/call", "t", None);
        assert_eq!(log(), "", "nothing sealed, nothing said");
        given.seal(binding, payload());
        assert_eq!(log(), "", "a key given is never warned about");
        for _ in 0..3 {
            random.clone().seal(binding, payload());
        }
        assert_eq!(log().matches(KEY_ENV).count(), 1, "{}", log());
        assert!(log().contains("WARN"), "{}", log());
    });
}

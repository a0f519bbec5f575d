//! Multi round-trip requests (2026-07-28, SEP-2322): one round of a `tools/call`,
//! `prompts/get` or `resources/read` that may need answers from the client.
//!
//! The handler code is the same in both eras. It calls `ctx.elicit(key, ..)` (or `sample`,
//! `list_roots`); on a stateless request the context looks the key up in this round's answers
//! (the retry's `inputResponses` plus those carried in `requestState`). A missing answer is
//! recorded as pending and the call fails with an input-required error, so the handler's `?`
//! ends the round; the server then answers with an `InputRequiredResult` that lists every
//! pending request and a sealed `requestState`, and the client's retry re-enters the handler.

use serde::de::DeserializeOwned;
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use std::sync::Mutex;

use crate::error::Error;
use crate::jsonrpc::RpcError;
use crate::request_state::{Binding, StatePayload, StateSealer};

/// One round of a stateless request: the answers it has and the questions it still asks.
#[derive(Debug, Default)]
pub(crate) struct InputRound {
    answers: Map<String, Value>,
    pending: Mutex<Map<String, Value>>,
    saved: Mutex<Map<String, Value>>,
    /// An answer did not fit its request: the round must end with that error, not with more
    /// questions.
    malformed: std::sync::atomic::AtomicBool,
}

impl InputRound {
    /// The round for a request bound to `binding`: opens its `requestState` (refusing a
    /// tampered, expired or foreign one) and adds its `inputResponses` to the answers carried
    /// there. With a state, only answers to what the previous round asked are taken, and an
    /// answer given in an earlier round is never replaced: a client cannot slip in answers to
    /// questions the handler has not asked yet, nor change one it already acted on.
    pub(crate) fn start(
        sealer: &StateSealer,
        binding: impl FnOnce() -> Binding,
        input_responses: Option<&RawValue>,
        request_state: Option<&str>,
    ) -> Result<Self, RpcError> {
        let carried = match request_state {
            Some(state) => Some(
                sealer
                    .open(state, binding())
                    .map_err(|e| e.into_rpc_error())?,
            ),
            None => None,
        };
        // `inputResponses: null` is the same as none.
        if let Some(responses) = input_responses.filter(|r| r.get() != "null") {
            let responses: Map<String, Value> =
                serde_json::from_str(responses.get()).map_err(|_| {
                    RpcError::invalid_params(
                        "Invalid params: inputResponses must be an object keyed by input request",
                    )
                })?;
            return Ok(Self::from_answers(carried, responses));
        }
        Ok(Self::from_answers(carried, Map::new()))
    }

    /// The round's answers: those `carried` in the state plus the `responses` it asked for
    /// (all of them when there is no state: nothing was asked, nothing can be replaced).
    fn from_answers(carried: Option<StatePayload>, responses: Map<String, Value>) -> Self {
        let (answers, saved) = match carried {
            None => (responses, Map::new()),
            Some(carried) => {
                let mut answers = carried.answers;
                for (key, answer) in responses {
                    if carried.asked.contains(&key) && !answers.contains_key(&key) {
                        answers.insert(key, answer);
                    }
                }
                (answers, carried.saved)
            }
        };
        Self {
            answers,
            pending: Mutex::default(),
            saved: Mutex::new(saved),
            malformed: Default::default(),
        }
    }

    /// The answer to the input request `key` as `R`; `None` when not answered yet (the
    /// request is then recorded as pending).
    ///
    /// An answer that does not fit `R` is a protocol error (`-32602`), not a missing one: the
    /// client answered, wrongly.
    pub(crate) fn answer<R: DeserializeOwned>(
        &self,
        key: &str,
        method: &str,
        params: Value,
    ) -> Result<R, Error> {
        match self.answers.get(key) {
            Some(answer) => R::deserialize(answer).map_err(|e| {
                self.malformed
                    .store(true, std::sync::atomic::Ordering::Relaxed);
                Error::protocol(
                    crate::jsonrpc::INVALID_PARAMS,
                    format!(
                        "Invalid params: inputResponses.{key} is not a valid {method} result: {e}"
                    ),
                )
            }),
            None => {
                let request = serde_json::json!({ "method": method, "params": params });
                lock(&self.pending).insert(key.to_string(), request);
                Err(Error::input_required(key))
            }
        }
    }

    /// A value the handler saved in an earlier round.
    pub(crate) fn saved<T: DeserializeOwned>(&self, name: &str) -> Option<T> {
        let saved = lock(&self.saved);
        T::deserialize(saved.get(name)?).ok()
    }

    /// Saves a value for the next rounds.
    pub(crate) fn save(&self, name: &str, value: Value) {
        lock(&self.saved).insert(name.to_string(), value);
    }

    /// Whether the round ends by asking again: the handler asked for something the client has
    /// not answered, and every answer it did give fit.
    pub(crate) fn needs_input(&self) -> bool {
        !self.malformed.load(std::sync::atomic::Ordering::Relaxed)
            && !lock(&self.pending).is_empty()
    }

    /// The `InputRequiredResult` of this round: every pending request, and a state carrying the
    /// answers so far and the saved values, sealed for `binding`.
    pub(crate) fn input_required_result(
        &self,
        sealer: &StateSealer,
        binding: Binding,
    ) -> Result<crate::json::JsonText, RpcError> {
        let pending = lock(&self.pending);
        let payload = StatePayload {
            answers: self.answers.clone(),
            saved: lock(&self.saved).clone(),
            asked: pending.keys().cloned().collect(),
        };
        let result = serde_json::json!({
            "resultType": "input_required",
            "inputRequests": pending.clone(),
            "requestState": sealer.seal(binding, payload),
        });
        crate::json::JsonText::of(&result).map_err(|e| RpcError::internal(e.to_string()))
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|p| p.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::request_state::SealingKey;
    use serde_json::json;
    use std::time::Duration;

    #[test]
    fn only_asked_answers_are_taken_and_earlier_ones_stay() {
        let sealer = StateSealer::new(
            SealingKey::new(*b"0123456789abcdef0123456789abcdef").unwrap(),
            Duration::from_secs(60),
        );
        let bind = || Binding::new("tools/call", "t", Some(&json!({})));
        // The previous round asked `name`; an earlier one was answered `color`.
        let mut payload = StatePayload::default();
        payload.answers.insert("color".into(), json!("red"));
        payload.asked = vec!["name".into()];
        let state = sealer.seal(bind(), payload);
        let responses = json!({"name": "Ada", "color": "blue", "later": 1}).to_string();
        let responses = RawValue::from_string(responses).unwrap();
        let round = InputRound::start(&sealer, bind, Some(&responses), Some(&state)).unwrap();
        assert_eq!(round.answers.get("name"), Some(&json!("Ada")));
        assert_eq!(round.answers.get("color"), Some(&json!("red")));
        assert!(!round.answers.contains_key("later"));
        // Without a state nothing was asked before: every answer is this round's.
        let first = InputRound::start(&sealer, bind, Some(&responses), None).unwrap();
        assert_eq!(first.answers.len(), 3);
        // The state a round seals names what it asked.
        let _ = first.answer::<Value>("age", "elicitation/create", json!({}));
        let sealed = first.input_required_result(&sealer, bind()).unwrap();
        let sealed: Value = serde_json::from_str(sealed.get()).unwrap();
        let reopened = sealer
            .open(sealed["requestState"].as_str().unwrap(), bind())
            .unwrap();
        assert_eq!(reopened.asked, ["age"]);
    }
}

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
    /// tampered, expired or foreign one) and merges its `inputResponses` over the answers
    /// carried there.
    pub(crate) fn start(
        sealer: &StateSealer,
        binding: impl FnOnce() -> Binding,
        input_responses: Option<&RawValue>,
        request_state: Option<&str>,
    ) -> Result<Self, RpcError> {
        let mut carried = match request_state {
            Some(state) => sealer
                .open(state, binding())
                .map_err(|e| e.into_rpc_error())?,
            None => StatePayload::default(),
        };
        // `inputResponses: null` is the same as none.
        if let Some(responses) = input_responses.filter(|r| r.get() != "null") {
            let responses: Map<String, Value> =
                serde_json::from_str(responses.get()).map_err(|_| {
                    RpcError::invalid_params(
                        "Invalid params: inputResponses must be an object keyed by input request",
                    )
                })?;
            carried.answers.extend(responses);
        }
        Ok(Self {
            answers: carried.answers,
            pending: Mutex::default(),
            saved: Mutex::new(carried.saved),
            malformed: Default::default(),
        })
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
        let payload = StatePayload {
            answers: self.answers.clone(),
            saved: lock(&self.saved).clone(),
        };
        let result = serde_json::json!({
            "resultType": "input_required",
            "inputRequests": lock(&self.pending).clone(),
            "requestState": sealer.seal(binding, payload),
        });
        crate::json::JsonText::of(&result).map_err(|e| RpcError::internal(e.to_string()))
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|p| p.into_inner())
}

//! 2025-03-26 batches: the messages of one array handled in order, their answers gathered
//! into one array. Later revisions removed batches.

use serde_json::value::RawValue;

use super::incoming::{self, Incoming, Request};
use super::method::Method;
use super::{answer_key, Engine, Era, OwnedParams};
use crate::auth::Principal;
use crate::dispatch::{Dispatch, Door};
use crate::jsonrpc::{self, error_response, RpcError};
use crate::protocol::ProtocolVersion;
use crate::session::Session;
use std::sync::Arc;

/// Whether `session` may send batches (2025-03-26 only); the error says why not.
pub(crate) fn allowed(session: &Session) -> Result<(), RpcError> {
    match session.version() {
        ProtocolVersion::V2025_03_26 => Ok(()),
        version => Err(RpcError::new(
            jsonrpc::INVALID_REQUEST,
            format!("Invalid Request: batches are not part of protocol version {version}"),
        )),
    }
}

impl<D: Dispatch> Engine<D> {
    /// Handles every message of a batch of `session` that came through `door` in order: the
    /// answers as one JSON array, or `None` when nothing in it asks for an answer (only
    /// notifications and responses).
    pub(crate) async fn batch(
        self: &Arc<Self>,
        door: Door,
        session: &Arc<Session>,
        messages: &[&RawValue],
        principal: Option<&Arc<Principal>>,
    ) -> Option<String> {
        let mut answers = Vec::new();
        for message in messages {
            match incoming::read(message.get(), None) {
                Err(error) => answers.push(error_response(None, &error)),
                Ok(Incoming::Request(Request {
                    id,
                    method: "initialize",
                    ..
                })) => answers.push(error_response(
                    Some(id),
                    &RpcError::new(
                        jsonrpc::INVALID_REQUEST,
                        "Invalid Request: initialize cannot be part of a batch",
                    ),
                )),
                Ok(Incoming::Request(request)) => {
                    let ctx = self
                        .session_context(session, None)
                        .through(door)
                        .with_principal(principal.cloned());
                    let method = Method::of(request.method);
                    let era = Era::Session(session);
                    let id = request.id;
                    let answer = match OwnedParams::keep(method, request.params) {
                        Ok(params) => self.handle(era, method, request.method, &params, ctx).await,
                        Err(error) => Err(error),
                    };
                    answers.push(match answer {
                        Ok(result) => result.into_success_response(id),
                        Err(error) => error_response(Some(id), &error),
                    });
                }
                Ok(Incoming::Notification { method, params }) => {
                    self.notification(session, method, params);
                }
                Ok(Incoming::Response { id, answer }) => {
                    session.answer_client_request(&answer_key(id), answer);
                }
            }
        }
        (!answers.is_empty()).then(|| format!("[{}]", answers.join(",")))
    }
}

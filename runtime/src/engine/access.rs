//! What the rest of the runtime may read of the engine, and the jobs it asks of it.
//!
//! The engine's fields are its own: a transport, the listener or `McpServer` reads
//! the configuration and the contract through the accessors here (plain references, inlined:
//! no request pays for them), and asks the engine to do what needs its other parts (a stream
//! relayed from another instance, a reconfiguration, the load figures) instead of reaching
//! into them.

use std::net::IpAddr;
use std::sync::Arc;

use super::param_headers::ParamHeaders;
use super::Engine;
use crate::config::Config;
use crate::delivery::event_log::EventLog;
use crate::delivery::legacy_streams::Connections;
use crate::delivery::notifier::Notifier;
use crate::delivery::relay::Waiting;
use crate::dispatch::Dispatch;
use crate::lifecycle::load::Load;
use crate::rate_limit::{Limiter, PeerKey};
use crate::request_state::{SealingKey, StateSealer};

impl<D: Dispatch> Engine<D> {
    /// The server's configuration.
    #[inline]
    pub(crate) fn config(&self) -> &Config {
        &self.config
    }

    /// The generated dispatch (its contract: the catalog, the scopes, the server card).
    #[inline]
    pub(crate) fn dispatch(&self) -> &D {
        &self.dispatch
    }

    /// Whether the server bundles skills: without them the skills extension's methods do not
    /// exist (the stateless era's check refuses them like an unknown method).
    #[inline]
    pub(crate) fn has_skills(&self) -> bool {
        !self.dispatch.contract().skills().is_empty()
    }

    /// The notifier: list changes, resource updates, the standalone and listen streams.
    #[inline]
    pub(crate) fn notifier(&self) -> &Notifier {
        &self.notifier
    }

    /// The tool arguments mirrored in `Mcp-Param-*` headers (the stateless HTTP edge checks
    /// them against the body).
    #[inline]
    pub(crate) fn param_headers(&self) -> &ParamHeaders {
        &self.param_headers
    }

    /// The log of broadcasts the instances share, if any (a standalone stream resumes from it).
    #[inline]
    pub(crate) fn event_log(&self) -> Option<&Arc<dyn EventLog>> {
        self.event_log.as_ref()
    }

    /// The open streams of the 2024-11-05 HTTP+SSE transport (empty when it is off).
    #[inline]
    pub(crate) fn legacy_streams(&self) -> &Arc<Connections> {
        &self.legacy_sse
    }

    /// Whether some rate limit exists (else nothing is checked, and no peer is keyed).
    #[inline]
    pub(crate) fn has_rate_limits(&self) -> bool {
        self.limiter.is_some()
    }

    /// The rate limits' key of a peer at `ip`, when some limit exists.
    pub(crate) fn rate_peer_key(&self, ip: IpAddr) -> Option<PeerKey> {
        self.limiter.as_ref().map(|limiter| limiter.peer_key(ip))
    }

    /// Asks the instance that issued stream `stream` of shared session `session_id` to relay
    /// its events after `after` (a POST's SSE stream resumed on an instance that does not
    /// hold it).
    pub(crate) fn ask_relay(&self, session_id: &str, stream: u32, after: u64) -> Waiting {
        self.relays.ask(&*self.bus, session_id, stream, after)
    }

    /// What the server holds right now, apart from what its sessions hold (the caller visits
    /// them): sessions, listen streams, tasks, rate-limit fallbacks.
    pub(crate) fn load(&self) -> Load {
        Load {
            sessions: self.sessions.store().len(),
            listen_streams: self.notifier.listen_streams(),
            tasks_held: self.tasks.held(),
            tasks_running: self.tasks.running_here(),
            rate_limit_fallbacks: self.limiter.as_ref().map_or(0, Limiter::fallbacks),
            ..Load::default()
        }
    }

    /// The engine with `config` instead of its own (the flags and `MCP_*` variables of
    /// `entry::run`): the contract's scopes published with the authorization metadata, the
    /// `requestState` sealer and the rate limits rebuilt from it; shared buckets, if the
    /// server's stores have them, stay (the stores are not rebuilt).
    pub(crate) fn reconfigure(&mut self, mut config: Config) {
        publish_scopes(&mut config, &self.dispatch);
        self.config = config;
        self.sessions.reconfigure(&self.config);
        self.sealer = sealer(&self.config);
        let buckets = self.limiter.as_ref().and_then(Limiter::shared_buckets);
        self.limiter = Limiter::of(self.config.rate_limits.as_ref(), &self.dispatch, buckets);
    }
}

/// The contract's scopes, published with the authorization metadata of `config`.
pub(super) fn publish_scopes<D: Dispatch>(config: &mut Config, dispatch: &D) {
    if let Some(auth) = config.auth.take() {
        config.auth = Some(auth.support_scopes(dispatch.contract().scopes_supported()));
    }
}

/// The sealer `config` asks for: its keys (else those of [`KEY_ENV`](crate::request_state::KEY_ENV) and
/// `MCP_REQUEST_STATE_PREVIOUS_KEY`; without a current key, a random one), its
/// TTL and whether states are single-use.
pub(super) fn sealer(config: &Config) -> StateSealer {
    let previous = match &config.request_state.request_state_previous_key {
        Some(key) => Some(key.clone()),
        None => SealingKey::previous_from_env().unwrap_or_else(|error| {
            tracing::error!(%error, "ignoring the previous requestState key");
            None
        }),
    };
    let (key, random) = current_key(config);
    StateSealer::new(key, config.request_state.request_state_ttl)
        .with_previous(previous)
        .single_use(config.request_state.request_state_single_use)
        .random_key(random)
}

/// The configured sealing key, else the environment's, else a random one (true: the first
/// state sealed warns about it).
fn current_key(config: &Config) -> (SealingKey, bool) {
    if let Some(key) = &config.request_state.request_state_key {
        return (key.clone(), false);
    }
    match SealingKey::from_env() {
        Ok(Some(key)) => (key, false),
        Ok(None) => (SealingKey::random(), true),
        Err(error) => {
            tracing::error!(%error, "ignoring the requestState key; using a random one");
            (SealingKey::random(), true)
        }
    }
}

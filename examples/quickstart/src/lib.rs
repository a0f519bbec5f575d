//! Quickstart: a notes server generated from `openrpc.json` by `build.rs`, and its handler.
//!
//! `server` is the generated module (types, the `Handler` trait, `Server<H>`, descriptors);
//! [`Notes`] implements the trait over an in-memory list.

use std::sync::Mutex;

use mcp_runtime::{Error, RequestContext};

/// The code generated from `openrpc.json`.
pub mod server {
    include!(concat!(env!("OUT_DIR"), "/mcp_server.rs"));
}

use server::types;

/// The notes, kept in memory.
#[derive(Debug, Default)]
pub struct Notes {
    notes: Mutex<Vec<types::Note>>,
}

impl Notes {
    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<types::Note>> {
        // A panic while holding the lock cannot leave the list half-written: every update is a
        // single push or clear, so the data is still consistent.
        self.notes
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

impl server::Handler for Notes {
    async fn add(&self, _ctx: &RequestContext, params: types::AddParams) -> Result<i64, Error> {
        params.a.checked_add(params.b).ok_or_else(|| {
            Error::new(format!(
                "{} + {} overflows a 64-bit integer",
                params.a, params.b
            ))
        })
    }

    async fn create_note(
        &self,
        _ctx: &RequestContext,
        params: types::CreateNoteParams,
    ) -> Result<types::Note, Error> {
        if params.title.trim().is_empty() {
            return Err(Error::invalid_params("a note needs a non-empty title"));
        }
        let mut notes = self.lock();
        let note = types::Note {
            id: notes.len() as i64 + 1,
            title: params.title,
            body: params.body,
            tags: params.tags.unwrap_or_default(),
            priority: params.priority.unwrap_or(types::Priority::Normal),
        };
        notes.push(note.clone());
        Ok(note)
    }

    async fn search_notes(
        &self,
        _ctx: &RequestContext,
        params: types::SearchNotesParams,
    ) -> Result<types::SearchNotesResult, Error> {
        let query = params.query.to_lowercase();
        let matching: Vec<types::Note> = self
            .lock()
            .iter()
            .filter(|n| {
                n.title.to_lowercase().contains(&query) || n.body.to_lowercase().contains(&query)
            })
            .cloned()
            .collect();
        let total = matching.len() as i64;
        let limit = usize::try_from(params.limit.max(0)).unwrap_or(usize::MAX);
        Ok(types::SearchNotesResult {
            notes: matching.into_iter().take(limit).collect(),
            total,
        })
    }

    async fn summarize(
        &self,
        _ctx: &RequestContext,
        params: types::SummarizeParams,
    ) -> Result<String, Error> {
        let notes = self.lock();
        let listed: Vec<String> = notes
            .iter()
            .map(|n| format!("- {}: {}", n.title, n.body))
            .collect();
        let style = match params.style {
            None | Some(types::SummarizeParamsStyle::Paragraph) => "a short paragraph",
            Some(types::SummarizeParamsStyle::BulletPoints) => "bullet points",
            Some(types::SummarizeParamsStyle::Haiku) => "a haiku",
        };
        Ok(format!(
            "Summarize what these notes say about {}, as {}.\n{}",
            params.topic,
            style,
            listed.join("\n")
        ))
    }

    /// Topics are the notes' tags: the ones starting with what the user typed, each once.
    async fn complete_summarize_topic(
        &self,
        _ctx: &RequestContext,
        request: mcp_runtime::CompletionRequest,
    ) -> Result<Vec<String>, Error> {
        let typed = request.value.to_lowercase();
        let tags: std::collections::BTreeSet<String> = self
            .lock()
            .iter()
            .flat_map(|note| note.tags.iter())
            .filter(|tag| tag.to_lowercase().starts_with(&typed))
            .cloned()
            .collect();
        Ok(tags.into_iter().collect())
    }

    async fn note_index(
        &self,
        _ctx: &RequestContext,
    ) -> Result<std::collections::BTreeMap<String, String>, Error> {
        Ok(self
            .lock()
            .iter()
            .map(|n| (n.id.to_string(), n.title.clone()))
            .collect())
    }

    async fn get_note(
        &self,
        _ctx: &RequestContext,
        params: types::GetNoteParams,
    ) -> Result<types::Note, Error> {
        self.lock()
            .iter()
            .find(|n| n.id == params.id)
            .cloned()
            .ok_or_else(|| Error::invalid_params(format!("no note with id {}", params.id)))
    }

    async fn stats(&self, _ctx: &RequestContext) -> Result<types::StatsResult, Error> {
        Ok(types::StatsResult {
            notes: self.lock().len() as i64,
        })
    }

    async fn clear(&self, _ctx: &RequestContext) -> Result<(), Error> {
        self.lock().clear();
        Ok(())
    }
}

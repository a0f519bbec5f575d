//! The document bundled into one JSON value, for `rpc.discover`: the root file as read, with
//! every `$ref` that points into another file rewritten to a reference inside the document.
//!
//! A reference is resolved by the loader's own [`Loader::resolve`] (and, where OpenRPC objects
//! chain, [`Loader::follow`]), so the files it may read are the ones loading may read. Its
//! target is hoisted into the `components` section its place calls for (a param or result:
//! `contentDescriptors`; a schema: `schemas`; a method's error, link, example pairing or tag:
//! `errors`, `links`, `examplePairings`, `tags`; an example pairing's param or result:
//! `examples`), under the name loading gives it (the last segment of its pointer, or the file's
//! stem), made unique within the section. Methods have no section: a method in another file is
//! inlined. A target is named before it is walked, so a reference back to it (a cycle across
//! files) is a `#/components/...` reference, never a copy; targets wait in a queue, so a chain
//! of ten thousand files is walked without recursion.
//!
//! References inside the root file stay as written (but for a `#/definitions/X` read in an
//! embedded schema's own definitions, which names that definition); one that names the root file by its path
//! (`main.json#/x`) becomes `#/x`. A value of the root file that a reference reaches is walked
//! where it stands too (a `#/definitions/X` outside `components` may refer to another file). The components added come after the root's own, in the
//! order they were first referenced: the bundle is deterministic.

use std::collections::{HashMap, HashSet, VecDeque};

use indexmap::IndexMap;
use serde_json::{Map, Value};

use super::paths::{fragment_encode, percent_decode};
use super::{ptr_child, Loader};
use crate::names::Scope;
use crate::openrpc::json_pos::escape_token;
use crate::schema_walk;

/// What an OpenRPC value is, which says where its references stand and what they may name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Kind {
    Method,
    ContentDescriptor,
    Schema,
    Error,
    Link,
    ExamplePairing,
    Example,
    Tag,
}

impl Kind {
    /// The `components` section holding values of this kind (none for methods).
    fn section(self) -> Option<&'static str> {
        Some(match self {
            Kind::Method => return None,
            Kind::ContentDescriptor => "contentDescriptors",
            Kind::Schema => "schemas",
            Kind::Error => "errors",
            Kind::Link => "links",
            Kind::ExamplePairing => "examplePairings",
            Kind::Example => "examples",
            Kind::Tag => "tags",
        })
    }

    /// The kind of the values of the `components` section `section`.
    fn of_section(section: &str) -> Option<Kind> {
        [
            Kind::ContentDescriptor,
            Kind::Schema,
            Kind::Error,
            Kind::Link,
            Kind::ExamplePairing,
            Kind::Example,
            Kind::Tag,
        ]
        .into_iter()
        .find(|kind| kind.section() == Some(section))
    }

    /// How a `$ref` cycle of this kind is reported.
    fn what(self) -> &'static str {
        match self {
            Kind::Method => "method",
            Kind::ContentDescriptor => "content descriptor",
            Kind::Schema => "schema",
            Kind::Error => "error",
            Kind::Link => "link",
            Kind::ExamplePairing => "example pairing",
            Kind::Example => "example",
            Kind::Tag => "tag",
        }
    }

    /// The name of a hoisted value whose pointer and file give none.
    fn fallback_name(self) -> &'static str {
        match self {
            Kind::Method => "Method",
            Kind::ContentDescriptor => "ContentDescriptor",
            Kind::Schema => "Schema",
            Kind::Error => "Error",
            Kind::Link => "Link",
            Kind::ExamplePairing => "ExamplePairing",
            Kind::Example => "Example",
            Kind::Tag => "Tag",
        }
    }
}

/// The values hoisted so far and those still to walk.
#[derive(Default)]
struct Hoisting {
    /// (kind, canonical key of the target) -> its name in the section.
    named: HashMap<(Kind, String), String>,
    /// The names taken in each section: the root's own, then the hoisted ones.
    scopes: HashMap<&'static str, Scope>,
    /// Named but not yet walked: (kind, file, pointer, name).
    queue: VecDeque<(Kind, usize, String, String)>,
    /// Section -> name -> value, in the order the names were given.
    out: IndexMap<&'static str, IndexMap<String, Value>>,
    /// Values of the root file that a reference reaches, to walk where they are (a
    /// `#/definitions/...` outside `components` may refer to another file too): (kind, pointer).
    in_place: VecDeque<(Kind, String)>,
    in_place_seen: HashSet<(Kind, String)>,
}

impl Hoisting {
    /// Walks the root file's `kind` at `pointer` where it is, once. Walking a value twice
    /// changes nothing: what the first walk rewrote points inside the document.
    fn walk_in_place(&mut self, kind: Kind, pointer: String) {
        if self.in_place_seen.insert((kind, pointer.clone())) {
            self.in_place.push_back((kind, pointer));
        }
    }
}

/// What a `$ref` becomes.
enum Rewrite {
    /// The `$ref` string, replaced.
    Ref(String),
    /// The reference object, replaced by this value (a method from another file).
    Inline(Value),
}

impl Loader {
    /// The whole document as one value. Only called on a document that loaded without errors;
    /// a reference only the bundle follows (a tag, an example pairing's example, a component
    /// nothing uses) and that does not resolve is reported like any other.
    pub(super) fn bundle(&mut self, top: &Map<String, Value>) -> Value {
        let mut hoisting = Hoisting::default();
        if let Some(Value::Object(components)) = top.get("components") {
            for (section, entries) in components {
                let (Some(kind), Value::Object(entries)) = (Kind::of_section(section), entries)
                else {
                    continue;
                };
                let section = kind.section().expect("a section's kind has a section");
                let scope = hoisting.scopes.entry(section).or_default();
                for name in entries.keys() {
                    scope.reserve(name);
                }
            }
        }

        let mut root = Value::Object(top.clone());
        if let Some(Value::Array(methods)) = root.get_mut("methods") {
            for (i, method) in methods.iter_mut().enumerate() {
                if self.skipped_methods.contains(&i) {
                    // A declared `rpc.discover`, not read: served as written (its result
                    // may name the OpenRPC meta-schema by URL).
                    continue;
                }
                self.walk(
                    &mut hoisting,
                    Kind::Method,
                    0,
                    &format!("/methods/{i}"),
                    method,
                );
            }
        }
        if let Some(Value::Object(components)) = root.get_mut("components") {
            for (section, entries) in components.iter_mut() {
                let (Some(kind), Value::Object(entries)) = (Kind::of_section(section), entries)
                else {
                    continue;
                };
                let section_ptr = ptr_child("/components", section);
                for (name, value) in entries.iter_mut() {
                    self.walk(
                        &mut hoisting,
                        kind,
                        0,
                        &ptr_child(&section_ptr, name),
                        value,
                    );
                }
            }
        }
        loop {
            if let Some((kind, file, pointer, name)) = hoisting.queue.pop_front() {
                let mut value = self.files[file]
                    .value
                    .pointer(&pointer)
                    .cloned()
                    .unwrap_or(Value::Null);
                self.walk(&mut hoisting, kind, file, &pointer, &mut value);
                let section = kind
                    .section()
                    .expect("only kinds with a section are hoisted");
                hoisting.out.entry(section).or_default().insert(name, value);
            } else if let Some((kind, pointer)) = hoisting.in_place.pop_front() {
                let Some(slot) = root.pointer_mut(&pointer) else {
                    // A reference only the bundle reaches, left as written.
                    continue;
                };
                let mut value = std::mem::take(slot);
                self.walk(&mut hoisting, kind, 0, &pointer, &mut value);
                if let Some(slot) = root.pointer_mut(&pointer) {
                    *slot = value;
                }
            } else {
                break;
            }
        }

        let Value::Object(mut root) = root else {
            unreachable!("the root was an object and stays one")
        };
        if !hoisting.out.is_empty() {
            let components = root
                .entry("components")
                .or_insert_with(|| Value::Object(Map::new()));
            if let Value::Object(components) = components {
                for (section, entries) in hoisting.out {
                    let section = components
                        .entry(section)
                        .or_insert_with(|| Value::Object(Map::new()));
                    if let Value::Object(section) = section {
                        section.extend(entries);
                    }
                }
            }
        }
        Value::Object(root)
    }

    /// Rewrites the references in `value`, a `kind` found at `pointer` in `file`.
    fn walk(
        &mut self,
        hoisting: &mut Hoisting,
        kind: Kind,
        file: usize,
        pointer: &str,
        value: &mut Value,
    ) {
        let Value::Object(map) = value else { return };
        if let Some(Value::String(reference)) = map.get("$ref") {
            let reference = reference.clone();
            match self.rewrite(hoisting, kind, file, pointer, &reference) {
                Some(Rewrite::Ref(new)) => {
                    map.insert("$ref".to_string(), Value::String(new));
                }
                Some(Rewrite::Inline(inlined)) => {
                    *value = inlined;
                    return;
                }
                None => {}
            }
            // A schema's other keywords still apply beside its `$ref`; an OpenRPC reference
            // object is only the reference.
            if kind != Kind::Schema {
                return;
            }
        }
        let Value::Object(map) = value else { return };
        let children = children(kind, pointer, map);
        for (kind, pointer, child) in children {
            self.walk(hoisting, kind, file, &pointer, child);
        }
    }

    /// What the `$ref` `reference` of the `kind` at `pointer` in `file` becomes: nothing when
    /// it stays (inside the root file, or unresolvable: reported).
    fn rewrite(
        &mut self,
        hoisting: &mut Hoisting,
        kind: Kind,
        file: usize,
        pointer: &str,
        reference: &str,
    ) -> Option<Rewrite> {
        if let Some(fragment) = reference.strip_prefix('#').filter(|_| file == 0) {
            let target = percent_decode(fragment)?;
            if self.files[0].value.pointer(&target).is_none() {
                // A schemars schema's own `#/definitions/X` (loading warned): the bundle names
                // the definition where it stands, so the document served resolves.
                let site = ptr_child(pointer, "$ref");
                if let Some(embedded) = self.embedded_definition(0, &site, &target) {
                    hoisting.walk_in_place(kind, embedded.clone());
                    return Some(Rewrite::Ref(format!("#{}", fragment_encode(&embedded))));
                }
            }
            hoisting.walk_in_place(kind, target);
            return None;
        }
        let (target, target_ptr) = if kind == Kind::Schema {
            // A schema may be a bare `$ref` to another: kept, each hoisted in turn.
            let site = self.locate(file, &ptr_child(pointer, "$ref"));
            self.resolve(file, reference, &site)?
        } else {
            // A component must be the object itself: the chain is followed to its end.
            let (target, target_ptr, value) = self.follow(file, pointer, kind.what())?;
            if kind == Kind::Method && target != 0 {
                let mut value = value;
                self.walk(hoisting, Kind::Method, target, &target_ptr, &mut value);
                return Some(Rewrite::Inline(value));
            }
            (target, target_ptr)
        };
        if target == 0 {
            let rewritten = format!("#{}", fragment_encode(&target_ptr));
            hoisting.walk_in_place(kind, target_ptr);
            return Some(Rewrite::Ref(rewritten));
        }
        let section = kind.section()?;
        let name = self.hoist(hoisting, kind, target, &target_ptr);
        let pointer = format!("/components/{section}/{}", escape_token(&name));
        Some(Rewrite::Ref(format!("#{}", fragment_encode(&pointer))))
    }

    /// The name of the hoisted `kind` at `pointer` in `file` (not the root), given and queued
    /// for walking the first time.
    fn hoist(&mut self, hoisting: &mut Hoisting, kind: Kind, file: usize, pointer: &str) -> String {
        let key = (kind, self.key_for(file, pointer));
        if let Some(name) = hoisting.named.get(&key) {
            return name.clone();
        }
        let section = kind
            .section()
            .expect("only kinds with a section are hoisted");
        let mut name = self.suggested_name(file, pointer);
        if name.is_empty() {
            name = kind.fallback_name().to_string();
        }
        let name = hoisting
            .scopes
            .entry(section)
            .or_default()
            .unique_ident(&name);
        // The placeholder keeps the section in naming order.
        hoisting
            .out
            .entry(section)
            .or_default()
            .insert(name.clone(), Value::Null);
        hoisting.named.insert(key, name.clone());
        hoisting
            .queue
            .push_back((kind, file, pointer.to_string(), name.clone()));
        name
    }
}

/// The values inside `map`, a `kind` at `pointer`, that may hold references: each with its kind
/// and pointer, in document order.
fn children<'v>(
    kind: Kind,
    pointer: &str,
    map: &'v mut Map<String, Value>,
) -> Vec<(Kind, String, &'v mut Value)> {
    let mut children = Vec::new();
    for (key, child) in map.iter_mut() {
        let at = ptr_child(pointer, key);
        let (child_kind, many) = match (kind, key.as_str()) {
            (Kind::Method, "params") => (Kind::ContentDescriptor, true),
            (Kind::Method, "result") => (Kind::ContentDescriptor, false),
            (Kind::Method, "errors") => (Kind::Error, true),
            (Kind::Method, "links") => (Kind::Link, true),
            (Kind::Method, "examples") => (Kind::ExamplePairing, true),
            (Kind::Method, "tags") => (Kind::Tag, true),
            (Kind::ContentDescriptor, "schema") => (Kind::Schema, false),
            (Kind::ExamplePairing, "params") => (Kind::Example, true),
            (Kind::ExamplePairing, "result") => (Kind::Example, false),
            (Kind::Schema, _) => {
                children.extend(
                    schema_walk::subschemas_mut(key, child)
                        .into_iter()
                        .map(|(member, schema)| (Kind::Schema, member.pointer(&at), schema)),
                );
                continue;
            }
            _ => continue,
        };
        if !many {
            children.push((child_kind, at, child));
        } else if let Value::Array(items) = child {
            children.extend(
                items
                    .iter_mut()
                    .enumerate()
                    .map(|(i, item)| (child_kind, format!("{at}/{i}"), item)),
            );
        }
    }
    children
}

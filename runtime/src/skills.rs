//! The skills extension (SEP-2640, `io.modelcontextprotocol/skills`): Agent Skills bundled into
//! the server at generation time, served through `skills/list`, `skills/get`, `resources/read`
//! and `resources/directory/read`.
//!
//! The generator reads a `skills/` directory beside the contract, checks each `SKILL.md`'s
//! frontmatter, computes every file's digest and size, and emits a `&'static [Skill]` whose
//! entries are JSON text already. Serving is lookups in that slice: nothing is read from disk
//! at run time, and a server without skills answers these methods `-32601` as before.
//!
//! URIs: a skill named `pdf` is `skill://pdf/SKILL.md`; its file `references/FORMS.md` is
//! `skill://pdf/references/FORMS.md`; its directories are `skill://pdf` and
//! `skill://pdf/references` (no trailing slash).

use base64::Engine as _;
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{json, Map, Value};
use std::borrow::Cow;

use crate::json::JsonText;
use crate::jsonrpc::RpcError;

/// The extension's identifier, the key under `capabilities.extensions`.
#[doc(hidden)]
pub const SKILLS_EXTENSION: &str = "io.modelcontextprotocol/skills";

/// The URI scheme of skill files.
#[doc(hidden)]
pub const SKILL_SCHEME: &str = "skill://";

/// The `mimeType` of a directory child in a `resources/directory/read` result.
#[doc(hidden)]
pub const DIRECTORY_MIME_TYPE: &str = "inode/directory";

/// One bundled skill.
#[derive(Debug)]
pub struct Skill {
    /// The skill's name (its folder's name and its frontmatter `name`).
    pub name: &'static str,
    /// The frontmatter `description`: the `SKILL.md` resource's description.
    pub description: &'static str,
    /// The skill entry of `skills/list` and `skills/get` as a JSON object: `uri`,
    /// `frontmatter` (the `SKILL.md` frontmatter as JSON) and `resources` (every file's `uri`,
    /// `sha256:` digest and `size`).
    pub entry: &'static str,
    /// Every file of the skill, `SKILL.md` first, the others by path.
    pub files: &'static [SkillFile],
}

/// One file of a skill.
#[derive(Debug)]
pub struct SkillFile {
    /// The path inside the skill's folder, `/`-separated (`SKILL.md`, `references/FORMS.md`).
    pub path: &'static str,
    /// The `mimeType` it is served with.
    pub mime_type: &'static str,
    /// Its bytes.
    pub content: SkillContent,
}

/// A skill file's bytes: text (served as `text`) or anything else (served as a base64 `blob`).
#[derive(Debug)]
pub enum SkillContent {
    /// UTF-8 text.
    Text(&'static str),
    /// Bytes that are not text.
    Binary(&'static [u8]),
}

impl SkillContent {
    /// The raw bytes (what the digest and size cover).
    pub fn bytes(&self) -> &'static [u8] {
        match self {
            SkillContent::Text(text) => text.as_bytes(),
            SkillContent::Binary(bytes) => bytes,
        }
    }
}

/// The skills extension's settings object under `capabilities.extensions`: this server
/// answers `resources/directory/read`.
pub(crate) fn capability() -> Map<String, Value> {
    let mut settings = Map::new();
    settings.insert("directoryRead".into(), Value::Bool(true));
    settings
}

/// Which of the extension's methods a request is.
#[derive(Debug, Clone, Copy)]
pub(crate) enum SkillsMethod {
    List,
    Get,
    DirectoryRead,
}

/// Answers `skills/list`, `skills/get` or `resources/directory/read` (`name` is the method's
/// wire name). A server without skills does not know these methods: `-32601`, as before the
/// extension existed.
#[cold]
pub(crate) fn serve(
    skills: &[Skill],
    method: SkillsMethod,
    name: &str,
    params: Option<&RawValue>,
    page_size: usize,
) -> Result<JsonText, RpcError> {
    if skills.is_empty() {
        return Err(RpcError::method_not_found(name));
    }
    let result = match method {
        SkillsMethod::List => list(skills, params, page_size),
        SkillsMethod::Get => get(skills, params),
        SkillsMethod::DirectoryRead => read_directory(skills, params, page_size),
    };
    if let Err(error) = &result {
        tracing::debug!(method = name, code = error.code, "skills request refused");
    }
    result
}

#[derive(Deserialize)]
struct ListParams<'a> {
    #[serde(borrow, default, deserialize_with = "crate::json::borrowed_str")]
    cursor: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
struct UriParams<'a> {
    #[serde(borrow)]
    uri: Cow<'a, str>,
    #[serde(borrow, default, deserialize_with = "crate::json::borrowed_str")]
    cursor: Option<Cow<'a, str>>,
}

fn params_as<'a, T: Deserialize<'a>>(params: Option<&'a RawValue>) -> Result<T, RpcError> {
    serde_json::from_str(params.map_or("{}", RawValue::get))
        .map_err(|e| RpcError::invalid_params(format!("Invalid params: {e}")))
}

/// Where a page starts: an absent or empty cursor is the start; any other cursor is an index
/// this server handed out (`-32602` otherwise).
fn page_start(cursor: Option<&str>, len: usize) -> Result<usize, RpcError> {
    match cursor {
        None | Some("") => Ok(0),
        Some(text) => text
            .parse::<usize>()
            .ok()
            .filter(|&n| n <= len)
            .ok_or_else(|| RpcError::invalid_params(format!("Invalid cursor: {text}"))),
    }
}

/// `skills/list`: whole entries (never split across pages), `page_size` at a time.
fn list(
    skills: &[Skill],
    params: Option<&RawValue>,
    page_size: usize,
) -> Result<JsonText, RpcError> {
    let request: ListParams<'_> = params_as(params)?;
    let start = page_start(request.cursor.as_deref(), skills.len())?;
    let end = (start + page_size.max(1)).min(skills.len());
    let mut out = String::from("{\"skills\":[");
    for (i, skill) in skills[start..end].iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(skill.entry);
    }
    out.push(']');
    if end < skills.len() {
        out.push_str(&format!(",\"nextCursor\":\"{end}\""));
    }
    out.push('}');
    Ok(JsonText::trusted(out))
}

/// `skills/get`: the entry of the skill whose `SKILL.md` URI is `uri`; `-32602` for any other.
fn get(skills: &[Skill], params: Option<&RawValue>) -> Result<JsonText, RpcError> {
    let request: UriParams<'_> = params_as(params)?;
    let uri = request.uri.as_ref();
    let skill = file_of(skills, uri)
        .filter(|(_, file)| file.path == "SKILL.md")
        .map(|(skill, _)| skill)
        .ok_or_else(|| {
            RpcError::invalid_params(format!("Unknown skill: {uri}")).with_data(json!({"uri": uri}))
        })?;
    Ok(JsonText::trusted(format!("{{\"skill\":{}}}", skill.entry)))
}

/// The skill and file `uri` names, if it names one.
fn file_of<'s>(skills: &'s [Skill], uri: &str) -> Option<(&'s Skill, &'s SkillFile)> {
    let (name, path) = uri.strip_prefix(SKILL_SCHEME)?.split_once('/')?;
    let skill = skills.iter().find(|s| s.name == name)?;
    let file = skill.files.iter().find(|f| f.path == path)?;
    Some((skill, file))
}

/// `resources/read` of a skill file: `None` when `uri` is no bundled file (the contract's own
/// resources and templates are asked next).
pub(crate) fn read(skills: &[Skill], uri: &str) -> Option<JsonText> {
    if skills.is_empty() {
        return None;
    }
    let (_, file) = file_of(skills, uri)?;
    let mut content = Map::new();
    content.insert("uri".into(), Value::String(uri.to_string()));
    content.insert("mimeType".into(), Value::String(file.mime_type.to_string()));
    match file.content {
        SkillContent::Text(text) => content.insert("text".into(), Value::String(text.into())),
        SkillContent::Binary(bytes) => content.insert(
            "blob".into(),
            Value::String(base64::engine::general_purpose::STANDARD.encode(bytes)),
        ),
    };
    Some(JsonText::trusted(
        json!({ "contents": [Value::Object(content)] }).to_string(),
    ))
}

/// `resources/directory/read`: the direct children of a skill directory (files with their
/// metadata, subdirectories as `inode/directory`), `page_size` at a time. A URI that is not a
/// served directory (a file, an unknown skill, a trailing slash) is `-32602`.
fn read_directory(
    skills: &[Skill],
    params: Option<&RawValue>,
    page_size: usize,
) -> Result<JsonText, RpcError> {
    let request: UriParams<'_> = params_as(params)?;
    let uri = request.uri.as_ref();
    let not_a_directory = || {
        RpcError::invalid_params(format!("Not a directory resource: {uri}"))
            .with_data(json!({"uri": uri}))
    };
    let rest = uri.strip_prefix(SKILL_SCHEME).ok_or_else(not_a_directory)?;
    let (name, dir) = match rest.split_once('/') {
        Some((name, dir)) => (name, Some(dir)),
        None => (rest, None),
    };
    let skill = skills
        .iter()
        .find(|s| s.name == name)
        .ok_or_else(not_a_directory)?;
    let prefix = match dir {
        None => String::new(),
        Some(dir) if !dir.is_empty() && !dir.ends_with('/') => format!("{dir}/"),
        Some(_) => return Err(not_a_directory()),
    };
    let children = children(skill, &prefix, uri);
    if children.is_empty() {
        // A skill's root always holds SKILL.md: an empty listing is a path that is no
        // directory (a file, or nothing).
        return Err(not_a_directory());
    }
    let start = page_start(request.cursor.as_deref(), children.len())?;
    let end = (start + page_size.max(1)).min(children.len());
    let mut result = Map::new();
    result.insert(
        "resources".into(),
        Value::Array(children[start..end].to_vec()),
    );
    if end < children.len() {
        result.insert("nextCursor".into(), Value::String(end.to_string()));
    }
    Ok(JsonText::trusted(Value::Object(result).to_string()))
}

/// The direct children of the directory `prefix` (empty for the skill's root, else ending in
/// `/`) of `skill`, whose URI is `dir_uri`: files in path order, each subdirectory once.
fn children(skill: &Skill, prefix: &str, dir_uri: &str) -> Vec<Value> {
    let mut out = Vec::new();
    let mut seen_dirs: Vec<&str> = Vec::new();
    for file in skill.files {
        let Some(rest) = file.path.strip_prefix(prefix) else {
            continue;
        };
        match rest.split_once('/') {
            Some((sub, _)) => {
                if !seen_dirs.contains(&sub) {
                    seen_dirs.push(sub);
                    out.push(json!({
                        "uri": format!("{dir_uri}/{sub}"),
                        "name": sub,
                        "mimeType": DIRECTORY_MIME_TYPE,
                    }));
                }
            }
            None => out.push(json!({
                "uri": format!("{dir_uri}/{rest}"),
                "name": rest,
                "mimeType": file.mime_type,
                "size": file.content.bytes().len(),
            })),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    static FILES: &[SkillFile] = &[
        SkillFile {
            path: "SKILL.md",
            mime_type: "text/markdown",
            content: SkillContent::Text("---\nname: demo\ndescription: A demo\n---\nBody\n"),
        },
        SkillFile {
            path: "data.bin",
            mime_type: "application/octet-stream",
            content: SkillContent::Binary(b"\x00\xff"),
        },
        SkillFile {
            path: "references/a/deep.md",
            mime_type: "text/markdown",
            content: SkillContent::Text("deep"),
        },
        SkillFile {
            path: "references/guide.md",
            mime_type: "text/markdown",
            content: SkillContent::Text("guide"),
        },
    ];
    static SKILLS: &[Skill] = &[Skill {
        name: "demo",
        description: "A demo",
        entry: r#"{"uri":"skill://demo/SKILL.md","frontmatter":{"name":"demo","description":"A demo"},"resources":[]}"#,
        files: FILES,
    }];

    fn raw(value: Value) -> Box<RawValue> {
        serde_json::value::to_raw_value(&value).unwrap()
    }

    fn call(method: SkillsMethod, params: Value, page: usize) -> Result<Value, RpcError> {
        let params = raw(params);
        serve(SKILLS, method, "m", Some(&params), page)
            .map(|text| serde_json::from_str(text.get()).unwrap())
    }

    #[test]
    fn without_skills_the_methods_do_not_exist() {
        let error = serve(&[], SkillsMethod::List, "skills/list", None, 10).unwrap_err();
        assert_eq!(error.code, crate::jsonrpc::METHOD_NOT_FOUND);
        assert!(read(&[], "skill://demo/SKILL.md").is_none());
    }

    #[test]
    fn list_pages_whole_entries_and_get_answers_by_skill_md_uri() {
        let page = call(SkillsMethod::List, json!({}), 10).unwrap();
        assert_eq!(page["skills"][0]["uri"], "skill://demo/SKILL.md");
        assert!(page.get("nextCursor").is_none());
        let skill = call(
            SkillsMethod::Get,
            json!({"uri": "skill://demo/SKILL.md"}),
            10,
        )
        .unwrap();
        assert_eq!(skill["skill"]["frontmatter"]["name"], "demo");
        for uri in [
            "skill://demo/data.bin",
            "skill://demo",
            "skill://nope/SKILL.md",
            "x",
        ] {
            let error = call(SkillsMethod::Get, json!({ "uri": uri }), 10).unwrap_err();
            assert_eq!(error.code, crate::jsonrpc::INVALID_PARAMS, "{uri}");
        }
        let error = call(SkillsMethod::List, json!({"cursor": "9"}), 10).unwrap_err();
        assert_eq!(error.code, crate::jsonrpc::INVALID_PARAMS);
    }

    #[test]
    fn read_serves_text_and_blobs_and_leaves_other_uris_alone() {
        let text: Value = serde_json::from_str(
            read(SKILLS, "skill://demo/references/guide.md")
                .unwrap()
                .get(),
        )
        .unwrap();
        assert_eq!(text["contents"][0]["text"], "guide");
        let blob: Value =
            serde_json::from_str(read(SKILLS, "skill://demo/data.bin").unwrap().get()).unwrap();
        assert_eq!(blob["contents"][0]["blob"], "AP8=");
        for uri in [
            "skill://demo/missing",
            "skill://demo",
            "skill://demo/../x",
            "test://x",
        ] {
            assert!(read(SKILLS, uri).is_none(), "{uri}");
        }
    }

    #[test]
    fn directory_read_lists_direct_children_and_pages_them() {
        let root = call(
            SkillsMethod::DirectoryRead,
            json!({"uri": "skill://demo"}),
            10,
        )
        .unwrap();
        let uris: Vec<&str> = root["resources"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["uri"].as_str().unwrap())
            .collect();
        assert_eq!(
            uris,
            [
                "skill://demo/SKILL.md",
                "skill://demo/data.bin",
                "skill://demo/references"
            ]
        );
        assert_eq!(root["resources"][2]["mimeType"], DIRECTORY_MIME_TYPE);
        let sub = call(
            SkillsMethod::DirectoryRead,
            json!({"uri": "skill://demo/references"}),
            1,
        )
        .unwrap();
        assert_eq!(sub["resources"][0]["uri"], "skill://demo/references/a");
        assert_eq!(sub["nextCursor"], "1");
        let next = call(
            SkillsMethod::DirectoryRead,
            json!({"uri": "skill://demo/references", "cursor": "1"}),
            1,
        )
        .unwrap();
        assert_eq!(next["resources"][0]["name"], "guide.md");
        for uri in [
            "skill://demo/SKILL.md",
            "skill://demo/",
            "skill://demo/nope",
            "skill://other",
            "test://x",
            "skill://demo/references/",
        ] {
            let error = call(SkillsMethod::DirectoryRead, json!({ "uri": uri }), 10).unwrap_err();
            assert_eq!(error.code, crate::jsonrpc::INVALID_PARAMS, "{uri}");
        }
    }
}

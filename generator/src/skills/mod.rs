//! The skills extension (SEP-2640) at generation time: a `skills/` directory beside the
//! contract, one folder per skill holding a `SKILL.md` and its other files, is read, checked
//! and bundled into the generated server, which serves it through `skills/list`,
//! `skills/get`, `resources/read` and `resources/directory/read` (`mcp_runtime::skills`).
//!
//! Reading is bounded the way `$ref` files are (see `openrpc/load/files.rs`): regular files
//! only, no symbolic links (so nothing outside the folder is read), sizes and counts capped,
//! names that make URIs without escaping. A hostile directory gets diagnostics, never a panic.

mod emit;
pub mod frontmatter;

pub use emit::{descriptors as skill_descriptors, skills_static};

use serde_json::{Map, Value};
use sha2::{Digest, Sha256};
use std::io::Read;
use std::path::{Path, PathBuf};

use crate::{Diagnostic, Diagnostics, Location};

/// Rule id: the skills directory or a folder in it cannot be read.
pub const RULE_SKILLS_DIR: &str = "skills-dir";
/// Rule id: a skill file is not bundled (a symbolic link, not a regular file, a name that is
/// no URI segment, unreadable).
pub const RULE_SKILL_FILE: &str = "skill-file";
/// Rule id: a `SKILL.md` is missing, not UTF-8, or its frontmatter is not readable YAML.
pub const RULE_SKILL_MD: &str = "skill-md";
/// Rule id: a frontmatter field breaks the Agent Skills rules (`name`, `description`, ...).
pub const RULE_SKILL_FIELD: &str = "skill-frontmatter";
/// Rule id: a skill is larger than the extension allows (files, bytes, depth).
pub const RULE_SKILL_LIMIT: &str = "skill-limit";

/// Most files in one skill, `SKILL.md` included (the extension's limit).
pub const MAX_FILES_PER_SKILL: usize = 512;
/// Most bytes in one skill, summed over its files (the extension's limit: 16 MiB).
pub const MAX_SKILL_BYTES: u64 = 16 << 20;
/// Most bytes of all skills together: the generated source holds them.
pub const MAX_BUNDLE_BYTES: u64 = 32 << 20;
/// Most skills in one directory.
pub const MAX_SKILLS: usize = 1024;
/// Deepest folder nesting inside a skill.
pub const MAX_DEPTH: usize = 8;
/// Longest `description` (Agent Skills: 1-1024 characters).
pub const MAX_DESCRIPTION_CHARS: usize = 1024;
/// Longest `compatibility` (Agent Skills: 1-500 characters).
pub const MAX_COMPATIBILITY_CHARS: usize = 500;
/// Longest skill name (Agent Skills: 1-64 characters).
pub const MAX_NAME_CHARS: usize = 64;

/// The `metadata` key prefix the extension reserves.
const RESERVED_METADATA_PREFIX: &str = "io.modelcontextprotocol/";

/// One skill, read and checked.
#[derive(Debug, Clone)]
pub struct Skill {
    /// Its name: the folder's name and the frontmatter's `name`.
    pub name: String,
    /// The frontmatter's `description`.
    pub description: String,
    /// The whole frontmatter, as a YAML 1.2 parser reads it.
    pub frontmatter: Map<String, Value>,
    /// Its files, `SKILL.md` first and the others by path.
    pub files: Vec<SkillFile>,
}

/// One file of a skill.
#[derive(Debug, Clone)]
pub struct SkillFile {
    /// The path inside the skill's folder, `/`-separated.
    pub path: String,
    /// Its bytes.
    pub bytes: Vec<u8>,
    /// The `mimeType` it is served with (from its extension).
    pub mime_type: &'static str,
    /// Whether it is served as `text` (UTF-8 of a textual type) rather than a `blob`.
    pub text: bool,
}

impl SkillFile {
    /// `sha256:` and the 64 lowercase hex digits of the SHA-256 of its bytes.
    pub fn digest(&self) -> String {
        let hash = Sha256::digest(&self.bytes);
        let mut out = String::with_capacity(7 + 64);
        out.push_str("sha256:");
        for byte in hash {
            out.push_str(&format!("{byte:02x}"));
        }
        out
    }
}

impl Skill {
    /// `skill://<name>/SKILL.md`.
    pub fn uri(&self) -> String {
        format!("skill://{}/SKILL.md", self.name)
    }

    /// The skill entry of `skills/list` and `skills/get`: `uri`, `frontmatter` and the
    /// complete `resources` manifest (`uri`, `digest`, `size` of every file).
    pub fn entry(&self) -> Value {
        let resources: Vec<Value> = self
            .files
            .iter()
            .map(|file| {
                serde_json::json!({
                    "uri": format!("skill://{}/{}", self.name, file.path),
                    "digest": file.digest(),
                    "size": file.bytes.len(),
                })
            })
            .collect();
        serde_json::json!({
            "uri": self.uri(),
            "frontmatter": Value::Object(self.frontmatter.clone()),
            "resources": resources,
        })
    }
}

/// Where a contract's skills are: the `skills` directory beside it, when there is one.
pub fn beside(contract: &Path) -> Option<PathBuf> {
    let dir = contract.parent().unwrap_or(Path::new("")).join("skills");
    dir.is_dir().then_some(dir)
}

/// Reads every skill of `dir`, in name order. Errors and warnings come back together; the
/// caller refuses to generate when there is an error.
pub fn load(dir: &Path) -> (Vec<Skill>, Diagnostics) {
    let mut loader = Loader {
        diags: Diagnostics::default(),
        bundle_bytes: 0,
    };
    let skills = loader.directory(dir);
    loader.diags.sort();
    (skills, loader.diags)
}

struct Loader {
    diags: Diagnostics,
    bundle_bytes: u64,
}

/// Where `path` is, for a diagnostic that points at a whole file.
fn at(path: &Path) -> Location {
    at_line(path, 1, "")
}

fn at_line(path: &Path, line: usize, pointer: &str) -> Location {
    Location {
        file: path.to_path_buf(),
        line,
        column: 1,
        pointer: pointer.to_string(),
    }
}

/// A name in a skill that becomes a URI segment as it is: the URI's unreserved characters.
fn uri_segment(name: &str) -> bool {
    !name.is_empty()
        && name != "."
        && name != ".."
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-._~".contains(&b))
}

/// The Agent Skills naming rule: 1-64 of lowercase letters, digits and `-`, no `-` first,
/// last or twice in a row.
pub fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= MAX_NAME_CHARS
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !name.starts_with('-')
        && !name.ends_with('-')
        && !name.contains("--")
}

impl Loader {
    fn error(&mut self, rule: &'static str, location: Location, message: impl Into<String>) {
        self.diags.push(Diagnostic::error(rule, location, message));
    }

    /// The entries of `dir` by name, hidden ones (`.git`, `.DS_Store`) left out.
    fn entries(&mut self, dir: &Path) -> Option<Vec<(String, PathBuf, std::fs::Metadata)>> {
        let read = match std::fs::read_dir(dir) {
            Ok(read) => read,
            Err(e) => {
                self.error(
                    RULE_SKILLS_DIR,
                    at(dir),
                    format!("cannot read the directory: {e}"),
                );
                return None;
            }
        };
        let mut out = Vec::new();
        for entry in read {
            let entry = match entry {
                Ok(entry) => entry,
                Err(e) => {
                    self.error(
                        RULE_SKILLS_DIR,
                        at(dir),
                        format!("cannot read the directory: {e}"),
                    );
                    return None;
                }
            };
            let path = entry.path();
            let Some(name) = entry.file_name().to_str().map(str::to_string) else {
                self.error(
                    RULE_SKILL_FILE,
                    at(&path),
                    "the file name is not UTF-8: it cannot become a URI",
                );
                continue;
            };
            if name.starts_with('.') {
                continue;
            }
            // Not followed: a symbolic link is refused below, whatever it points at.
            match std::fs::symlink_metadata(&path) {
                Ok(metadata) => out.push((name, path, metadata)),
                Err(e) => self.error(RULE_SKILL_FILE, at(&path), format!("cannot read: {e}")),
            }
            if out.len() > MAX_SKILLS.max(MAX_FILES_PER_SKILL) * 4 {
                self.error(
                    RULE_SKILL_LIMIT,
                    at(dir),
                    "the directory holds too many entries",
                );
                return None;
            }
        }
        out.sort_by(|a, b| a.0.cmp(&b.0));
        Some(out)
    }

    fn directory(&mut self, dir: &Path) -> Vec<Skill> {
        let Some(entries) = self.entries(dir) else {
            return Vec::new();
        };
        let mut skills = Vec::new();
        for (name, path, metadata) in entries {
            if metadata.file_type().is_symlink() {
                self.error(
                    RULE_SKILL_FILE,
                    at(&path),
                    "symbolic links are not bundled: put the skill's folder itself here",
                );
                continue;
            }
            if !metadata.is_dir() {
                self.diags.push(Diagnostic::warning(
                    RULE_SKILLS_DIR,
                    at(&path),
                    "not a skill folder: only folders holding a SKILL.md are bundled, this file is left out",
                ));
                continue;
            }
            if skills.len() == MAX_SKILLS {
                self.error(
                    RULE_SKILL_LIMIT,
                    at(dir),
                    format!("more than {MAX_SKILLS} skills"),
                );
                break;
            }
            if let Some(skill) = self.skill(&name, &path) {
                skills.push(skill);
            }
        }
        skills
    }

    /// One skill folder: its files, then its `SKILL.md`'s frontmatter.
    fn skill(&mut self, name: &str, dir: &Path) -> Option<Skill> {
        if !valid_name(name) {
            self.error(
                RULE_SKILL_FIELD,
                at(dir),
                format!("the skill folder `{name}` is not a skill name: 1-{MAX_NAME_CHARS} lowercase letters, digits and `-`, no `-` first, last or twice in a row"),
            );
            return None;
        }
        let errors_before = self.diags.errors().count();
        let mut files = Vec::new();
        let mut bytes = 0;
        self.walk(dir, "", 0, &mut files, &mut bytes);
        if self.diags.errors().count() > errors_before {
            return None;
        }
        let skill_md_path = dir.join("SKILL.md");
        let Some(at_skill_md) = files.iter().position(|f: &SkillFile| f.path == "SKILL.md") else {
            self.error(
                RULE_SKILL_MD,
                at(&skill_md_path),
                "every skill folder must hold a SKILL.md (exactly that name) at its root",
            );
            return None;
        };
        for nested in files.iter().filter(|f| f.path.ends_with("/SKILL.md")) {
            self.diags.push(Diagnostic::warning(
                RULE_SKILL_MD,
                at(&dir.join(&nested.path)),
                format!("a SKILL.md below the skill's root is served as a file of `{name}`, not as a skill of its own: give that skill its own folder in the skills directory"),
            ));
        }
        let skill_md = files.remove(at_skill_md);
        let Ok(text) = std::str::from_utf8(&skill_md.bytes) else {
            self.error(
                RULE_SKILL_MD,
                at(&skill_md_path),
                "SKILL.md is not UTF-8 text",
            );
            return None;
        };
        let front = match frontmatter::parse_skill_md(text) {
            Ok(front) => front,
            Err(error) => {
                self.error(
                    RULE_SKILL_MD,
                    at_line(&skill_md_path, error.line, ""),
                    format!("frontmatter: {}", error.message),
                );
                return None;
            }
        };
        let (skill_name, description) = self.check_fields(name, &skill_md_path, &front)?;
        files.insert(0, skill_md);
        self.bundle_bytes += bytes;
        if self.bundle_bytes > MAX_BUNDLE_BYTES {
            self.error(
                RULE_SKILL_LIMIT,
                at(dir),
                format!("the skills together exceed {MAX_BUNDLE_BYTES} bytes, the most bundled into one server"),
            );
            return None;
        }
        Some(Skill {
            name: skill_name,
            description,
            frontmatter: front.value,
            files,
        })
    }

    /// Every file under `dir` (`prefix` is its path inside the skill), bounded.
    fn walk(
        &mut self,
        dir: &Path,
        prefix: &str,
        depth: usize,
        files: &mut Vec<SkillFile>,
        bytes: &mut u64,
    ) {
        if depth > MAX_DEPTH {
            self.error(
                RULE_SKILL_LIMIT,
                at(dir),
                format!("folders nest deeper than {MAX_DEPTH} levels"),
            );
            return;
        }
        let Some(entries) = self.entries(dir) else {
            return;
        };
        for (name, path, metadata) in entries {
            if !uri_segment(&name) {
                self.error(
                    RULE_SKILL_FILE,
                    at(&path),
                    format!("`{name}` cannot be a URI segment as it is: use letters, digits, `-`, `.`, `_` and `~`"),
                );
                continue;
            }
            let relative = format!("{prefix}{name}");
            let kind = metadata.file_type();
            if kind.is_symlink() {
                self.error(
                    RULE_SKILL_FILE,
                    at(&path),
                    "symbolic links are not bundled: copy the file into the skill's folder",
                );
            } else if kind.is_dir() {
                self.walk(&path, &format!("{relative}/"), depth + 1, files, bytes);
            } else if !kind.is_file() {
                self.error(
                    RULE_SKILL_FILE,
                    at(&path),
                    "not a regular file (a device, FIFO or socket): not bundled",
                );
            } else if files.len() == MAX_FILES_PER_SKILL {
                self.error(
                    RULE_SKILL_LIMIT,
                    at(&path),
                    format!(
                        "the skill holds more than {MAX_FILES_PER_SKILL} files, SKILL.md included"
                    ),
                );
                return;
            } else {
                let room = MAX_SKILL_BYTES - *bytes;
                match read_at_most(&path, room) {
                    Ok(Some(content)) => {
                        *bytes += content.len() as u64;
                        let (mime_type, text) = mime_of(&name, &content);
                        files.push(SkillFile {
                            path: relative,
                            bytes: content,
                            mime_type,
                            text,
                        });
                    }
                    Ok(None) => {
                        self.error(
                            RULE_SKILL_LIMIT,
                            at(&path),
                            format!("the skill's files exceed {MAX_SKILL_BYTES} bytes together"),
                        );
                        return;
                    }
                    Err(e) => self.error(RULE_SKILL_FILE, at(&path), format!("cannot read: {e}")),
                }
            }
        }
    }

    /// The frontmatter's fields against the Agent Skills rules: `name` (the folder's name),
    /// `description`, and the optional ones when present.
    fn check_fields(
        &mut self,
        folder: &str,
        path: &Path,
        front: &frontmatter::Frontmatter,
    ) -> Option<(String, String)> {
        let line_of = |key: &str| {
            front
                .key_lines
                .iter()
                .find(|(k, _)| k == key)
                .map_or(1, |(_, line)| *line)
        };
        let field = |key: &str| at_line(path, line_of(key), &format!("/{key}"));
        let errors_before = self.diags.errors().count();
        let value = &front.value;
        let name = match value.get("name") {
            Some(Value::String(name)) if name == folder => Some(name.clone()),
            Some(Value::String(name)) if !valid_name(name) => {
                self.error(RULE_SKILL_FIELD, field("name"), format!("`name` is {name:?}: 1-{MAX_NAME_CHARS} lowercase letters, digits and `-`, no `-` first, last or twice in a row"));
                None
            }
            Some(Value::String(name)) => {
                self.error(RULE_SKILL_FIELD, field("name"), format!("`name` is {name:?} but the folder is `{folder}`: they must be equal (the URI's last segment is the name)"));
                None
            }
            Some(other) => {
                self.error(
                    RULE_SKILL_FIELD,
                    field("name"),
                    format!("`name` must be a string, not {other}"),
                );
                None
            }
            None => {
                self.error(
                    RULE_SKILL_FIELD,
                    at(path),
                    "the frontmatter has no `name`: it is required",
                );
                None
            }
        };
        let description = match value.get("description") {
            Some(Value::String(d))
                if !d.trim().is_empty() && d.chars().count() <= MAX_DESCRIPTION_CHARS =>
            {
                Some(d.clone())
            }
            Some(Value::String(_)) => {
                self.error(RULE_SKILL_FIELD, field("description"), format!("`description` must hold 1-{MAX_DESCRIPTION_CHARS} characters, not only spaces"));
                None
            }
            Some(other) => {
                self.error(
                    RULE_SKILL_FIELD,
                    field("description"),
                    format!("`description` must be a string, not {other}: quote it"),
                );
                None
            }
            None => {
                self.error(
                    RULE_SKILL_FIELD,
                    at(path),
                    "the frontmatter has no `description`: it is required",
                );
                None
            }
        };
        match value.get("compatibility") {
            None => {}
            Some(Value::String(c))
                if !c.is_empty() && c.chars().count() <= MAX_COMPATIBILITY_CHARS => {}
            Some(_) => self.error(
                RULE_SKILL_FIELD,
                field("compatibility"),
                format!(
                    "`compatibility` must be a string of 1-{MAX_COMPATIBILITY_CHARS} characters"
                ),
            ),
        }
        for key in ["license", "allowed-tools"] {
            match value.get(key) {
                None | Some(Value::String(_)) => {}
                Some(other) => self.error(
                    RULE_SKILL_FIELD,
                    field(key),
                    format!("`{key}` must be a string, not {other}: quote it"),
                ),
            }
        }
        match value.get("metadata") {
            None => {}
            Some(Value::Object(metadata)) => {
                for (key, entry) in metadata {
                    if !entry.is_string() {
                        self.error(RULE_SKILL_FIELD, field("metadata"), format!("`metadata.{key}` must be a string (metadata maps strings to strings): quote it"));
                    }
                    if key.starts_with(RESERVED_METADATA_PREFIX) {
                        self.diags.push(Diagnostic::warning(RULE_SKILL_FIELD, field("metadata"), format!("`metadata.{key}`: keys under `{RESERVED_METADATA_PREFIX}` are reserved for MCP extensions, and none is defined")));
                    }
                }
            }
            Some(_) => self.error(
                RULE_SKILL_FIELD,
                field("metadata"),
                "`metadata` must be a mapping of strings to strings",
            ),
        }
        if self.diags.errors().count() > errors_before {
            return None;
        }
        Some((name?, description?))
    }
}

/// The bytes of the regular file at `path` when it holds at most `limit` (`None` when more:
/// checked while reading, since a file can grow).
fn read_at_most(path: &Path, limit: u64) -> std::io::Result<Option<Vec<u8>>> {
    let file = std::fs::File::open(path)?;
    if !file.metadata()?.is_file() {
        return Err(std::io::Error::other("not a regular file"));
    }
    let mut bytes = Vec::new();
    file.take(limit.saturating_add(1)).read_to_end(&mut bytes)?;
    Ok((bytes.len() as u64 <= limit).then_some(bytes))
}

/// The `mimeType` of a file named `name` and whether it is served as text: by extension;
/// an unknown extension is `text/plain` when the bytes are UTF-8 without NUL, else
/// `application/octet-stream`.
fn mime_of(name: &str, bytes: &[u8]) -> (&'static str, bool) {
    const TABLE: &[(&str, &str, bool)] = &[
        ("md", "text/markdown", true),
        ("markdown", "text/markdown", true),
        ("txt", "text/plain", true),
        ("json", "application/json", true),
        ("yaml", "application/yaml", true),
        ("yml", "application/yaml", true),
        ("toml", "application/toml", true),
        ("xml", "application/xml", true),
        ("html", "text/html", true),
        ("css", "text/css", true),
        ("csv", "text/csv", true),
        ("js", "text/javascript", true),
        ("ts", "text/x-typescript", true),
        ("py", "text/x-python", true),
        ("rs", "text/x-rust", true),
        ("sh", "application/x-sh", true),
        ("svg", "image/svg+xml", true),
        ("png", "image/png", false),
        ("jpg", "image/jpeg", false),
        ("jpeg", "image/jpeg", false),
        ("gif", "image/gif", false),
        ("webp", "image/webp", false),
        ("pdf", "application/pdf", false),
        ("zip", "application/zip", false),
        ("wasm", "application/wasm", false),
    ];
    let utf8 = std::str::from_utf8(bytes).is_ok() && !bytes.contains(&0);
    let extension = name.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase());
    match TABLE
        .iter()
        .find(|(e, _, _)| Some(*e) == extension.as_deref())
    {
        Some((_, mime, textual)) => (mime, *textual && utf8),
        None if utf8 => ("text/plain", true),
        None => ("application/octet-stream", false),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_the_agent_skills_rule() {
        for good in ["a", "pdf-processing", "x1", &"a".repeat(64)] {
            assert!(valid_name(good), "{good}");
        }
        for bad in ["", "-a", "a-", "a--b", "A", "a_b", "a.b", &"a".repeat(65)] {
            assert!(!valid_name(bad), "{bad}");
        }
    }

    #[test]
    fn digests_are_sha256_in_lowercase_hex() {
        let file = SkillFile {
            path: "x".into(),
            bytes: b"abc".to_vec(),
            mime_type: "text/plain",
            text: true,
        };
        assert_eq!(
            file.digest(),
            "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn mime_types_come_from_extensions_and_content() {
        assert_eq!(mime_of("SKILL.md", b"x"), ("text/markdown", true));
        assert_eq!(mime_of("logo.png", b"\x89PNG"), ("image/png", false));
        assert_eq!(mime_of("notes", b"hello"), ("text/plain", true));
        assert_eq!(
            mime_of("blob", b"\xff\x00"),
            ("application/octet-stream", false)
        );
        assert_eq!(mime_of("bad.md", b"\xff"), ("text/markdown", false));
    }
}

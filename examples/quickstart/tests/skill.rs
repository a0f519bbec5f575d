//! The quickstart ships one skill (`skills/note-taking/`): `build.rs` bundles it, and the
//! generated server serves exactly the bytes on disk, with a manifest that lists them.

use mcp_runtime::skills::SkillContent;
use mcp_runtime::Dispatch;
use quickstart::server::Server;
use quickstart::Notes;
use serde_json::Value;

#[test]
fn the_note_taking_skill_is_bundled_as_it_is_on_disk() {
    let server = Server::new(Notes::default());
    let skills = server.contract().skills();
    assert_eq!(skills.len(), 1);
    let skill = &skills[0];
    assert_eq!(skill.name, "note-taking");
    let on_disk = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/skills/note-taking/SKILL.md"
    ))
    .unwrap();
    assert_eq!(skill.files[0].path, "SKILL.md");
    assert!(matches!(skill.files[0].content, SkillContent::Text(_)));
    assert_eq!(skill.files[0].content.bytes(), on_disk.as_slice());

    let entry: Value = serde_json::from_str(skill.entry).unwrap();
    assert_eq!(entry["uri"], "skill://note-taking/SKILL.md");
    assert_eq!(entry["frontmatter"]["name"], "note-taking");
    assert_eq!(entry["frontmatter"]["metadata"]["version"], "1.0");
    assert_eq!(entry["resources"][0]["size"], on_disk.len());
    assert!(entry["resources"][0]["digest"]
        .as_str()
        .unwrap()
        .starts_with("sha256:"));
    // resources/list names the skill's SKILL.md after the contract's own resource.
    let listed = server.contract().catalog().resources.last().unwrap();
    assert_eq!(listed.key, "skill://note-taking/SKILL.md");
}

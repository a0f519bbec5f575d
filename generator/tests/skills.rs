//! The skills extension at generation time: a `skills/` directory beside the contract is
//! bundled (frontmatter as JSON, digests, sizes); a hostile one gets a diagnostic per problem,
//! naming the file (and the field), never a panic; without skills the output is unchanged.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use mcp_codegen::skills::{
    RULE_SKILLS_DIR, RULE_SKILL_FIELD, RULE_SKILL_FILE, RULE_SKILL_LIMIT, RULE_SKILL_MD,
};
use mcp_codegen::{Diagnostic, SkillsSource};
use sha2::{Digest, Sha256};

/// The quickstart contract, copied into a fresh directory.
fn contract_dir() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let contract = dir.path().join("openrpc.json");
    fs::copy(root.join("examples/quickstart/openrpc.json"), &contract).unwrap();
    (dir, contract)
}

fn write(path: &Path, bytes: impl AsRef<[u8]>) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, bytes).unwrap();
}

fn skill_md(name: &str, description: &str) -> String {
    format!("---\nname: {name}\ndescription: {description}\n---\n\nBody of {name}.\n")
}

/// The errors of a refused generation.
fn refused(contract: &Path) -> Vec<Diagnostic> {
    match mcp_codegen::generate(contract) {
        Ok(_) => panic!("{} was accepted", contract.display()),
        Err(diagnostics) => diagnostics.errors().cloned().collect(),
    }
}

/// Whether `errors` has one of `rule` whose location is `file` (and whose message holds
/// `words`).
fn has(errors: &[Diagnostic], rule: &str, file: &Path, words: &str) -> bool {
    errors
        .iter()
        .any(|d| d.rule == rule && d.location.file.ends_with(file) && d.message.contains(words))
}

#[test]
fn skills_beside_the_contract_are_bundled_with_digests_sizes_and_frontmatter() {
    let (dir, contract) = contract_dir();
    let skills = dir.path().join("skills");
    write(
        &skills.join("pdf-tools/SKILL.md"),
        "---\nname: pdf-tools\ndescription: >-\n  Fill PDF\n  forms\nmetadata:\n  owner: team\n---\nUse it.\n",
    );
    write(&skills.join("pdf-tools/references/FORMS.md"), "# Forms\n");
    write(&skills.join("pdf-tools/logo.png"), b"\x89PNG\x00\xff");
    write(&skills.join("pdf-tools/.DS_Store"), b"ignored");
    write(&skills.join("alpha/SKILL.md"), skill_md("alpha", "First"));
    write(
        &skills.join("alpha/inner/SKILL.md"),
        skill_md("inner", "Nested"),
    );

    let generated = mcp_codegen::generate(&contract).unwrap();
    let warning = &generated.warnings.0[0];
    assert_eq!(warning.rule, RULE_SKILL_MD);
    assert!(warning
        .location
        .file
        .ends_with("skills/alpha/inner/SKILL.md"));
    let names: Vec<&str> = generated.skills.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["alpha", "pdf-tools"]);
    let pdf = &generated.skills[1];
    let entry = pdf.entry();
    assert_eq!(entry["uri"], "skill://pdf-tools/SKILL.md");
    assert_eq!(
        entry["frontmatter"],
        serde_json::json!({"name": "pdf-tools", "description": "Fill PDF forms", "metadata": {"owner": "team"}})
    );
    let resources = entry["resources"].as_array().unwrap();
    let uris: Vec<&str> = resources
        .iter()
        .map(|r| r["uri"].as_str().unwrap())
        .collect();
    assert_eq!(
        uris,
        [
            "skill://pdf-tools/SKILL.md",
            "skill://pdf-tools/logo.png",
            "skill://pdf-tools/references/FORMS.md"
        ]
    );
    for (resource, file) in resources
        .iter()
        .zip(["SKILL.md", "logo.png", "references/FORMS.md"])
    {
        let bytes = fs::read(skills.join("pdf-tools").join(file)).unwrap();
        let digest: String = Sha256::digest(&bytes)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        assert_eq!(resource["digest"], format!("sha256:{digest}"), "{file}");
        assert_eq!(resource["size"], bytes.len(), "{file}");
    }

    let source = &generated.server.source;
    assert!(source.contains("pub static SKILLS: &[::mcp_runtime::skills::Skill]"));
    assert!(
        source.contains(".with_skills(descriptors::SKILLS)"),
        "{source}"
    );
    assert!(source.contains(r#"b"\x89PNG\0\xFF""#), "{source}");
    // SKILL.md is listed by resources/list, named and described by its frontmatter.
    assert!(source.contains(
        r#"{"uri":"skill://alpha/SKILL.md","name":"alpha","description":"First","mimeType":"text/markdown"}"#
    ));

    // Off, or no directory at all: exactly the output of a contract without skills.
    let off = mcp_codegen::generate_with(&contract, &SkillsSource::Off).unwrap();
    fs::rename(&skills, dir.path().join("elsewhere")).unwrap();
    let without = mcp_codegen::generate(&contract).unwrap();
    assert_eq!(off.server.source, without.server.source);
    assert!(!without.server.source.contains("skills"));
    // An explicit directory anywhere.
    let explicit =
        mcp_codegen::generate_with(&contract, &SkillsSource::Dir(dir.path().join("elsewhere")))
            .unwrap();
    assert_eq!(explicit.skills.len(), 2);
    assert_eq!(
        explicit.skills[0].files.len(),
        2,
        "alpha/inner/SKILL.md is a file of alpha"
    );
    let missing =
        mcp_codegen::generate_with(&contract, &SkillsSource::Dir(dir.path().join("nowhere")))
            .unwrap_err();
    assert!(missing.errors().any(|d| d.rule == RULE_SKILLS_DIR));
}

#[test]
fn frontmatter_rules_name_the_file_and_the_field() {
    let (dir, contract) = contract_dir();
    let skills = dir.path().join("skills");
    write(&skills.join("mismatch/SKILL.md"), skill_md("other", "x"));
    write(
        &skills.join("no-description/SKILL.md"),
        "---\nname: no-description\n---\n",
    );
    write(
        &skills.join("long/SKILL.md"),
        skill_md("long", &"d".repeat(1025)),
    );
    write(
        &skills.join("number/SKILL.md"),
        "---\nname: number\ndescription: 12\n---\n",
    );
    write(&skills.join("Bad_Name/SKILL.md"), skill_md("Bad_Name", "x"));
    write(
        &skills.join("flow/SKILL.md"),
        "---\nname: flow\ndescription: x\ntools: [a, b]\n---\n",
    );
    write(&skills.join("open/SKILL.md"), "---\nname: open\n");
    write(&skills.join("bare/SKILL.md"), "no frontmatter here\n");
    write(&skills.join("not-utf8/SKILL.md"), b"---\nname: \xff\n---\n");
    write(&skills.join("no-skill-md/README.md"), "nothing\n");
    write(
        &skills.join("meta/SKILL.md"),
        "---\nname: meta\ndescription: x\nmetadata:\n  count: 3\n---\n",
    );

    let errors = refused(&contract);
    let md = |skill: &str| PathBuf::from(format!("skills/{skill}/SKILL.md"));
    let mismatch = errors
        .iter()
        .find(|d| d.location.file.ends_with(md("mismatch")))
        .expect("mismatch");
    assert_eq!(
        (
            mismatch.rule,
            mismatch.location.line,
            mismatch.location.pointer.as_str()
        ),
        (RULE_SKILL_FIELD, 2, "/name")
    );
    assert!(has(
        &errors,
        RULE_SKILL_FIELD,
        &md("no-description"),
        "no `description`"
    ));
    assert!(has(&errors, RULE_SKILL_FIELD, &md("long"), "1-1024"));
    assert!(has(
        &errors,
        RULE_SKILL_FIELD,
        &md("number"),
        "must be a string"
    ));
    assert!(has(
        &errors,
        RULE_SKILL_FIELD,
        Path::new("skills/Bad_Name"),
        "not a skill name"
    ));
    let flow = errors
        .iter()
        .find(|d| d.location.file.ends_with(md("flow")))
        .expect("flow");
    assert_eq!((flow.rule, flow.location.line), (RULE_SKILL_MD, 4));
    assert!(has(&errors, RULE_SKILL_MD, &md("open"), "closing"));
    assert!(has(&errors, RULE_SKILL_MD, &md("bare"), "must begin"));
    assert!(has(&errors, RULE_SKILL_MD, &md("not-utf8"), "UTF-8"));
    assert!(has(
        &errors,
        RULE_SKILL_MD,
        &md("no-skill-md"),
        "must hold a SKILL.md"
    ));
    assert!(has(
        &errors,
        RULE_SKILL_FIELD,
        &md("meta"),
        "metadata.count"
    ));
    // Every error renders on one line per part, naming its file.
    for error in &errors {
        assert!(error.to_string().contains("skills/"), "{error}");
    }
}

#[test]
fn hostile_skill_directories_get_diagnostics_not_panics() {
    use std::os::unix::ffi::OsStrExt;
    use std::os::unix::fs::symlink;

    let (dir, contract) = contract_dir();
    let skills = dir.path().join("skills");
    let outside = tempfile::tempdir().unwrap();
    write(&outside.path().join("secret.txt"), "secret");

    // A link out of the folder, a linked skill folder, a link to a device.
    write(&skills.join("links/SKILL.md"), skill_md("links", "x"));
    symlink(
        outside.path().join("secret.txt"),
        skills.join("links/secret.txt"),
    )
    .unwrap();
    symlink("/dev/zero", skills.join("links/zero")).unwrap();
    symlink(outside.path(), skills.join("linked-skill")).unwrap();
    // A FIFO (opening it would block forever).
    write(&skills.join("fifo/SKILL.md"), skill_md("fifo", "x"));
    let made = Command::new("mkfifo")
        .arg(skills.join("fifo/pipe"))
        .status()
        .expect("mkfifo");
    assert!(made.success());
    // A file past the per-skill cap (sparse: no disk used).
    write(&skills.join("huge/SKILL.md"), skill_md("huge", "x"));
    fs::File::create(skills.join("huge/big.bin"))
        .unwrap()
        .set_len(mcp_codegen::skills::MAX_SKILL_BYTES + 1)
        .unwrap();
    // More files than a skill may hold.
    write(&skills.join("many/SKILL.md"), skill_md("many", "x"));
    for i in 0..mcp_codegen::skills::MAX_FILES_PER_SKILL {
        write(&skills.join(format!("many/f{i:04}.txt")), "x");
    }
    // Folders nested deeper than allowed.
    let mut deep = skills.join("deep");
    write(&deep.join("SKILL.md"), skill_md("deep", "x"));
    for _ in 0..=mcp_codegen::skills::MAX_DEPTH + 1 {
        deep = deep.join("d");
    }
    write(&deep.join("f.txt"), "x");
    // Names that are no URI segment: not UTF-8, a space, a percent sign.
    write(&skills.join("names/SKILL.md"), skill_md("names", "x"));
    let bad = std::ffi::OsStr::from_bytes(b"bad\xffname");
    write(&skills.join("names").join(bad), "x");
    write(&skills.join("names/with space.md"), "x");
    write(&skills.join("names/100%.md"), "x");
    // A frontmatter nested past the parser's depth.
    let mut nested = String::from("---\nname: nested\ndescription: x\n");
    for depth in 0..100 {
        nested.push_str(&format!("{}k:\n", " ".repeat(depth)));
    }
    nested.push_str("---\n");
    write(&skills.join("nested/SKILL.md"), nested);

    let errors = std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(move || refused(&contract))
        .unwrap()
        .join()
        .expect("no panic");
    let at = |p: &str| PathBuf::from(format!("skills/{p}"));
    assert!(has(
        &errors,
        RULE_SKILL_FILE,
        &at("links/secret.txt"),
        "symbolic link"
    ));
    assert!(has(
        &errors,
        RULE_SKILL_FILE,
        &at("links/zero"),
        "symbolic link"
    ));
    assert!(has(
        &errors,
        RULE_SKILL_FILE,
        &at("linked-skill"),
        "symbolic link"
    ));
    assert!(has(
        &errors,
        RULE_SKILL_FILE,
        &at("fifo/pipe"),
        "not a regular file"
    ));
    assert!(has(&errors, RULE_SKILL_LIMIT, &at("huge/big.bin"), "bytes"));
    assert!(has(
        &errors,
        RULE_SKILL_LIMIT,
        &at("many/f0511.txt"),
        "more than 512 files"
    ));
    assert!(has(&errors, RULE_SKILL_LIMIT, Path::new("d"), "deeper"));
    assert!(errors
        .iter()
        .any(|d| d.rule == RULE_SKILL_FILE && d.message.contains("not UTF-8")));
    assert!(has(
        &errors,
        RULE_SKILL_FILE,
        &at("names/with space.md"),
        "URI segment"
    ));
    assert!(has(
        &errors,
        RULE_SKILL_FILE,
        &at("names/100%.md"),
        "URI segment"
    ));
    assert!(has(
        &errors,
        RULE_SKILL_MD,
        &at("nested/SKILL.md"),
        "nesting"
    ));
    // Nothing outside the folder was read into any message.
    assert!(errors.iter().all(|d| !d.message.contains("secret\"")));
}

#[test]
fn the_cli_bundles_skills_beside_the_contract_or_from_skills_dir_and_refuses_bad_ones() {
    let (dir, contract) = contract_dir();
    let run = |out: &str, extra: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_mcp-codegen"))
            .arg(&contract)
            .arg("-o")
            .arg(dir.path().join(out))
            .args(extra)
            .arg("--quiet")
            .output()
            .unwrap()
    };
    // The root and the descriptors' file, where the skills are.
    let generated = |out: &str| {
        let src = dir.path().join(out).join("src");
        fs::read_to_string(src.join("generated.rs")).unwrap()
            + &fs::read_to_string(src.join("generated/descriptors.rs")).unwrap()
    };
    let elsewhere = dir.path().join("my-skills");
    write(
        &elsewhere.join("helper/SKILL.md"),
        skill_md("helper", "Helps"),
    );

    assert!(run("plain", &[]).status.success());
    assert!(!generated("plain").contains("SKILLS"));
    let explicit = run("explicit", &["--skills", elsewhere.to_str().unwrap()]);
    assert!(
        explicit.status.success(),
        "{}",
        String::from_utf8_lossy(&explicit.stderr)
    );
    assert!(generated("explicit").contains("skill://helper/SKILL.md"));

    write(
        &dir.path().join("skills/beside/SKILL.md"),
        skill_md("beside", "Here"),
    );
    assert!(run("beside", &[]).status.success());
    assert!(generated("beside").contains("skill://beside/SKILL.md"));
    assert!(run("off", &["--no-skills"]).status.success());
    assert!(!generated("off").contains("SKILLS"));

    write(
        &dir.path().join("skills/broken/SKILL.md"),
        "---\nname: broken\n---\n",
    );
    let refused = run("refused", &[]);
    assert_eq!(refused.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(stderr.contains("error[skill-frontmatter]"), "{stderr}");
    assert!(stderr.contains("skills/broken/SKILL.md"), "{stderr}");
    assert!(!dir.path().join("refused").exists());
}

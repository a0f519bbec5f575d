use super::*;
use serde_json::json;

#[test]
fn pointers_escape_tilde_and_slash() {
    let root = Path::Root;
    let a = root.key("a/b");
    let b = a.index(3);
    let c = b.key("~x");
    assert_eq!(c.pointer(), "/a~1b/3/~0x");
    assert_eq!(root.pointer(), "");
}

#[test]
fn every_violation_is_listed() {
    let root = Path::Root;
    let mut out = Violations::new();
    minimum(0i64, 1.0, false, &root.key("limit"), &mut out);
    max_length("héllo", 4, &root.key("name"), &mut out);
    max_length("héll", 4, &root.key("ok"), &mut out);
    minimum(1i64, 1.0, true, &root.key("n"), &mut out);
    maximum(2.5f64, 2.5, false, &root.key("m"), &mut out);
    multiple_of(10i64, 2.5, &root.key("m"), &mut out);
    multiple_of(0.3f64, 0.1, &root.key("m"), &mut out);
    multiple_of(7u8, 2.0, &root.key("odd"), &mut out);
    assert_eq!(
        out.message(),
        "/limit: must be ≥ 1; /name: must be at most 4 characters long; /n: must be > 1; \
             /odd: must be a multiple of 2"
    );
    assert_eq!(out.list()[0].keyword, "minimum");
}

#[test]
fn lengths_count_characters() {
    let root = Path::Root;
    let mut out = Violations::new();
    min_length("éé", 2, &root, &mut out);
    max_length("éé", 2, &root, &mut out);
    assert!(out.is_empty());
    min_length("é", 2, &root, &mut out);
    assert_eq!(out.message(), "(root): must be at least 2 characters long");
}

#[test]
fn arrays_and_objects() {
    let root = Path::Root;
    let mut out = Violations::new();
    unique_items(&[1, 2, 3], &root, &mut out);
    let long: Vec<u32> = (0..100).collect();
    unique_items(&long, &root, &mut out);
    min_items(1, 1, &root, &mut out);
    max_properties(2, 2, &root, &mut out);
    assert!(out.is_empty());
    unique_items(&["a", "b", "a"], &root.key("t"), &mut out);
    let mut long_dup = long.clone();
    long_dup.push(50);
    unique_items(&long_dup, &root.key("u"), &mut out);
    min_items(0, 1, &root.key("v"), &mut out);
    max_items(3, 2, &root.key("w"), &mut out);
    min_properties(0, 1, &root.key("x"), &mut out);
    max_properties(3, 2, &root.key("y"), &mut out);
    assert_eq!(
        out.message(),
        "/t: must not have duplicate items; /u: must not have duplicate items; \
             /v: must have at least 1 item; /w: must have at most 2 items; \
             /x: must have at least 1 property; /y: must have at most 2 properties"
    );
}

#[test]
fn const_and_enum_compare_numbers_by_value() {
    let root = Path::Root;
    let mut out = Violations::new();
    constant(&json!(1.0), &json!(1), &root, &mut out);
    constant(
        &json!({"b": [1], "a": null}),
        &json!({"a": null, "b": [1.0]}),
        &root,
        &mut out,
    );
    one_of(&json!(2), &[json!(1), json!(2.0)], &root, &mut out);
    assert!(out.is_empty());
    constant(&json!("1"), &json!(1), &root.key("c"), &mut out);
    one_of(
        &json!(null),
        &[json!(1), json!("a")],
        &root.key("e"),
        &mut out,
    );
    assert_eq!(out.message(), r#"/c: must be 1; /e: must be one of 1, "a""#);
}

#[test]
fn the_message_is_bounded() {
    let root = Path::Root;
    let mut out = Violations::new();
    for _ in 0..MAX_VIOLATIONS + 5 {
        min_items(0, 1, &root, &mut out);
    }
    assert_eq!(out.list().len(), MAX_VIOLATIONS);
    assert!(out.message().ends_with("; and 5 more"));
}

#[test]
fn check_keeps_each_violation_and_displays_the_old_message() {
    struct Limits(i64, &'static str);
    impl Validate for Limits {
        fn validate(&self, path: &Path<'_>, out: &mut Violations) {
            minimum(self.0, 1.0, false, &path.key("limit"), out);
            max_length(self.1, 4, &path.key("name"), out);
        }
    }
    assert_eq!(check(&Limits(1, "ok")), Ok(()));
    let error: Invalid = check(&Limits(0, "héllo")).unwrap_err();
    match error.violations() {
        [limit, name] => {
            assert_eq!(
                (limit.pointer.as_str(), limit.keyword),
                ("/limit", "minimum")
            );
            assert_eq!(
                (name.pointer.as_str(), name.keyword),
                ("/name", "maxLength")
            );
        }
        other => panic!("two violations expected, got {other:?}"),
    }
    assert_eq!(
        error.to_string(),
        "/limit: must be ≥ 1; /name: must be at most 4 characters long"
    );
}

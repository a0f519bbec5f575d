//! The document's file name in generated files.

/// The document's file name as the generated files mention it (in comments, Markdown and shell
/// commands alike): every character but ASCII letters, digits and `._+-` becomes `_`, so it
/// needs quoting nowhere.
pub(crate) fn file_name(name: &str) -> String {
    let name: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "._+-".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
    if name.is_empty() {
        "_".into()
    } else {
        name
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_names_need_no_quoting() {
        assert_eq!(file_name("openrpc.json"), "openrpc.json");
        assert_eq!(file_name("a b`\n$(x).json"), "a_b____x_.json");
        assert_eq!(file_name(""), "_");
    }
}

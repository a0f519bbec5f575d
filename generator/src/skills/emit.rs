//! The skills in the generated source: `descriptors::SKILLS` (every file's bytes as a string
//! or byte-string literal, each entry as JSON text) and a `resources/list` descriptor per
//! `SKILL.md`. Literals rather than `include_bytes!`: the generated file stands alone, and
//! the same skills give the same bytes wherever it is generated.

use proc_macro2::{Literal, TokenStream};
use quote::quote;

use super::Skill;
use crate::tokens::str_lit;

/// `pub static SKILLS: &[::mcp_runtime::skills::Skill]`, or nothing without skills.
pub fn skills_static(skills: &[Skill]) -> TokenStream {
    if skills.is_empty() {
        return TokenStream::new();
    }
    let entries = skills.iter().map(|skill| {
        let name = str_lit(&skill.name);
        let description = str_lit(&skill.description);
        let entry = str_lit(&skill.entry().to_string());
        let files = skill.files.iter().map(|file| {
            let path = str_lit(&file.path);
            let mime = str_lit(file.mime_type);
            let content = match std::str::from_utf8(&file.bytes) {
                Ok(text) if file.text => {
                    let text = str_lit(text);
                    quote!(::mcp_runtime::skills::SkillContent::Text(#text))
                }
                _ => {
                    let bytes = Literal::byte_string(&file.bytes);
                    quote!(::mcp_runtime::skills::SkillContent::Binary(#bytes))
                }
            };
            quote! {
                ::mcp_runtime::skills::SkillFile {
                    path: #path,
                    mime_type: #mime,
                    content: #content,
                }
            }
        });
        quote! {
            ::mcp_runtime::skills::Skill {
                name: #name,
                description: #description,
                entry: #entry,
                files: &[#(#files),*],
            }
        }
    });
    quote! {
        /// The skills bundled from the `skills/` directory beside the contract (the skills
        /// extension): each entry's JSON and every file's bytes.
        pub static SKILLS: &[::mcp_runtime::skills::Skill] = &[#(#entries),*];
    }
}

/// A `resources/list` descriptor per `SKILL.md`: named and described by its frontmatter,
/// `text/markdown`, the same in every revision.
pub fn descriptors(skills: &[Skill]) -> Vec<TokenStream> {
    skills
        .iter()
        .map(|skill| {
            let uri = skill.uri();
            let json = serde_json::json!({
                "uri": uri,
                "name": skill.name,
                "description": skill.description,
                "mimeType": "text/markdown",
            })
            .to_string();
            let key = str_lit(&uri);
            // The same text for every revision, stored once.
            let json = str_lit(&json);
            quote! {
                ::mcp_runtime::Descriptor {
                    key: #key,
                    json: ::mcp_runtime::generated_support::revisions([#json]),
                }
            }
        })
        .collect()
}

//! `search_tools`' ranking: which of a contract's tools a model's words mean, best first.
//!
//! A model asks in its own words ("latest block", "transfer ether"), not in the contract's
//! ("Returns the number of most recent block", `eth_sendTransaction`). The [`Index`] ranks every
//! tool by BM25F (Robertson and Zaragoza's BM25 over weighted fields) over:
//!
//! | field | from the descriptor | weight |
//! |---|---|---|
//! | name | the tool's name, split at `_`, `.`, `-` and camelCase (`EthGetBlockByNumber`: `eth get block by number`), with each pair of neighbours joined too (`ChainGetTipSet` finds `tipset`) | 3 |
//! | title | `title` | 2 |
//! | parameters | the names of `inputSchema.properties` | 1.5 |
//! | text | `description` and the properties' descriptions | 1 |
//!
//! Every word is lower-cased and stemmed (the Snowball English stemmer, `rust-stemmers`:
//! `transactions` and `transaction` are one term), function words are dropped, and each query
//! word also matches, for less:
//!
//! - the words of its group in [`SYNONYMS`], a small table of what API documents and their
//!   users say differently (`latest`/`recent`/`current`, `height`/`number`,
//!   `transfer`/`send`), at [`SYNONYM_WEIGHT`];
//! - a term of the contract that it begins or that begins it, three letters at least
//!   (`ether` and `eth`), at [`PREFIX_WEIGHT`].
//!
//! A query word scores a tool by its best match only, so synonyms never count twice.

use rust_stemmers::{Algorithm, Stemmer};
use serde_json::Value;
use std::collections::{HashMap, HashSet};
use std::sync::OnceLock;

/// BM25's term-frequency saturation.
const K1: f32 = 1.2;

/// BM25's length normalisation (0: none, 1: full).
const B: f32 = 0.75;

/// What a synonym of a query word counts for, against the word itself.
pub(super) const SYNONYM_WEIGHT: f32 = 0.6;

/// What a term the query word begins (or that begins it) counts for.
pub(super) const PREFIX_WEIGHT: f32 = 0.4;

/// The shortest word a prefix match is tried for.
const PREFIX_MIN: usize = 3;

/// The fields of a tool's text, in the order of [`WEIGHTS`].
const FIELDS: usize = 4;

/// Each field's weight: name, title, parameters, text.
const WEIGHTS: [f32; FIELDS] = [3.0, 2.0, 1.5, 1.0];

/// Words that say nothing about what a tool does.
const STOP_WORDS: &[&str] = &[
    "a", "an", "and", "are", "as", "at", "be", "by", "for", "from", "if", "in", "into", "is", "it",
    "its", "of", "on", "or", "that", "the", "this", "to", "with",
];

/// Groups of words API documents and their users use for one another. A query word of a group
/// also matches the group's other words, at [`SYNONYM_WEIGHT`]. General words only: a
/// contract's own vocabulary belongs in its descriptions (the overlay can add to them).
pub(super) const SYNONYMS: &[&[&str]] = &[
    &["latest", "recent", "current", "newest", "last", "head"],
    &["height", "number"],
    &["transfer", "send", "pay", "submit"],
    &[
        "get", "fetch", "retrieve", "read", "obtain", "lookup", "show", "find",
    ],
    &["list", "all", "enumerate"],
    &["create", "make", "new", "add", "register"],
    &["delete", "remove", "drop", "erase", "uninstall"],
    &["update", "modify", "change", "edit", "set"],
    &["count", "total", "size"],
    &["balance", "funds"],
    &["address", "account", "wallet"],
    &["fee", "cost", "price", "gas"],
    &["transaction", "tx", "txn"],
    &["message", "msg"],
    &["sign", "signature"],
    &["identifier", "id"],
    &["info", "information", "details", "status", "metadata"],
    &["version", "release"],
    &["stop", "cancel", "abort", "unsubscribe"],
    &["start", "begin", "launch", "subscribe"],
    &["error", "failure", "fault"],
    &["log", "event"],
    &["estimate", "simulate"],
    &["call", "invoke", "execute", "run"],
    &["code", "bytecode", "contract"],
    &["receipt", "confirmation"],
    &["chain", "network"],
];

/// A contract's tools, made searchable.
#[derive(Debug)]
pub(super) struct Index {
    /// Each tool's terms, per field, in declaration order.
    tools: Vec<[Vec<String>; FIELDS]>,
    /// Each field's average length in terms.
    average: [f32; FIELDS],
    /// In how many tools each term occurs.
    frequency: HashMap<String, u32>,
}

impl Index {
    /// The index of descriptors, each a tool's descriptor object (its newest revision's JSON).
    pub(super) fn new<'a>(descriptors: impl IntoIterator<Item = &'a str>) -> Self {
        let tools: Vec<[Vec<String>; FIELDS]> = descriptors.into_iter().map(fields).collect();
        let mut frequency: HashMap<String, u32> = HashMap::new();
        let mut average = [0.0; FIELDS];
        for tool in &tools {
            let mut seen = HashSet::new();
            for (field, terms) in tool.iter().enumerate() {
                average[field] += terms.len() as f32;
                for term in terms {
                    if seen.insert(term.as_str()) {
                        *frequency.entry(term.clone()).or_default() += 1;
                    }
                }
            }
        }
        for sum in &mut average {
            *sum = (*sum / tools.len().max(1) as f32).max(1.0);
        }
        Self {
            tools,
            average,
            frequency,
        }
    }

    /// The tools `query` finds, as indices in declaration order, best first (ties in
    /// declaration order); every tool, in that order, for a query of no words.
    pub(super) fn search(&self, query: &str) -> Vec<usize> {
        let words = terms(query);
        if words.is_empty() {
            return (0..self.tools.len()).collect();
        }
        let variants: Vec<Vec<(&str, f32)>> =
            words.iter().map(|word| self.variants(word)).collect();
        let mut scored: Vec<(usize, f32)> = self
            .tools
            .iter()
            .enumerate()
            .filter_map(|(at, tool)| {
                let score: f32 = variants
                    .iter()
                    .map(|matches| {
                        matches
                            .iter()
                            .map(|(term, weight)| weight * self.score(tool, term))
                            .fold(0.0, f32::max)
                    })
                    .sum();
                (score > 0.0).then_some((at, score))
            })
            .collect();
        scored.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        scored.into_iter().map(|(at, _)| at).collect()
    }

    /// The contract's terms a query word matches, with what each counts for.
    fn variants<'a>(&'a self, word: &'a str) -> Vec<(&'a str, f32)> {
        let mut matches = vec![(word, 1.0)];
        for synonym in synonyms(word) {
            matches.push((synonym.as_str(), SYNONYM_WEIGHT));
        }
        if word.len() >= PREFIX_MIN {
            for term in self.frequency.keys() {
                let (short, long) = match term.len() < word.len() {
                    true => (term.as_str(), word),
                    false => (word, term.as_str()),
                };
                if term != word && short.len() >= PREFIX_MIN && long.starts_with(short) {
                    matches.push((term.as_str(), PREFIX_WEIGHT));
                }
            }
        }
        matches
    }

    /// BM25F of one term in one tool.
    fn score(&self, tool: &[Vec<String>; FIELDS], term: &str) -> f32 {
        let Some(&df) = self.frequency.get(term) else {
            return 0.0;
        };
        let weighted: f32 = tool
            .iter()
            .enumerate()
            .map(|(field, terms)| {
                let count = terms.iter().filter(|t| *t == term).count() as f32;
                let norm = 1.0 - B + B * terms.len() as f32 / self.average[field];
                WEIGHTS[field] * count / norm
            })
            .sum();
        if weighted == 0.0 {
            return 0.0;
        }
        let n = self.tools.len() as f32;
        let idf = (1.0 + (n - df as f32 + 0.5) / (df as f32 + 0.5)).ln();
        idf * weighted / (K1 + weighted)
    }
}

/// A descriptor's terms per field (a descriptor that does not read has none).
fn fields(descriptor: &str) -> [Vec<String>; FIELDS] {
    let Ok(value) = serde_json::from_str::<Value>(descriptor) else {
        return Default::default();
    };
    let text = |value: &Value| value.as_str().unwrap_or("").to_owned();
    let mut name = terms(&text(&value["name"]));
    let joined: Vec<String> = name.windows(2).map(|pair| pair.concat()).collect();
    name.extend(joined.iter().map(|word| stem(word)));
    let title = terms(&text(&value["title"]));
    let mut parameters = Vec::new();
    let mut prose = text(&value["description"]);
    if let Some(properties) = value["inputSchema"]["properties"].as_object() {
        for (property, schema) in properties {
            parameters.extend(terms(property));
            prose.push(' ');
            prose.push_str(&text(&schema["description"]));
        }
    }
    [name, title, parameters, terms(&prose)]
}

/// The terms of `text`: its words split at anything not a letter or digit and at camelCase,
/// lower-cased and stemmed, function words and single letters left out.
pub(super) fn terms(text: &str) -> Vec<String> {
    let mut words = Vec::new();
    for token in text.split(|c: char| !c.is_alphanumeric()) {
        let chars: Vec<char> = token.chars().collect();
        let mut start = 0;
        for at in 1..chars.len() {
            let (before, here) = (chars[at - 1], chars[at]);
            let next_lower = chars.get(at + 1).is_some_and(|c| c.is_lowercase());
            let boundary = (before.is_lowercase() && here.is_uppercase())
                || (before.is_uppercase() && here.is_uppercase() && next_lower)
                || (before.is_alphabetic() != here.is_alphabetic());
            if boundary {
                words.push(chars[start..at].iter().collect::<String>());
                start = at;
            }
        }
        words.push(chars[start..].iter().collect::<String>());
    }
    words
        .into_iter()
        .map(|word| word.to_lowercase())
        .filter(|word| word.chars().count() > 1 && !STOP_WORDS.contains(&word.as_str()))
        .map(|word| stem(&word))
        .collect()
}

fn stem(word: &str) -> String {
    static STEMMER: OnceLock<Stemmer> = OnceLock::new();
    STEMMER
        .get_or_init(|| Stemmer::create(Algorithm::English))
        .stem(word)
        .into_owned()
}

/// The other (stemmed) words of `word`'s groups in [`SYNONYMS`].
fn synonyms(word: &str) -> impl Iterator<Item = &'static String> + '_ {
    static GROUPS: OnceLock<Vec<Vec<String>>> = OnceLock::new();
    GROUPS
        .get_or_init(|| {
            SYNONYMS
                .iter()
                .map(|group| group.iter().map(|word| stem(word)).collect())
                .collect()
        })
        .iter()
        .filter(move |group| group.iter().any(|w| w == word))
        .flatten()
        .filter(move |w| *w != word)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tool(name: &str, description: &str) -> String {
        serde_json::json!({"name": name, "description": description}).to_string()
    }

    fn names(index: &Index, query: &str, tools: &[String]) -> Vec<String> {
        index
            .search(query)
            .into_iter()
            .map(|at| serde_json::from_str::<Value>(&tools[at]).unwrap()["name"].to_string())
            .collect()
    }

    #[test]
    fn words_split_at_case_and_punctuation_and_are_stemmed() {
        assert_eq!(
            terms("Filecoin.EthGetBlockByNumber"),
            ["filecoin", "eth", "get", "block", "number"]
        );
        assert_eq!(
            terms("RPCServer v2 of the Transactions"),
            ["rpc", "server", "transact"]
        );
        assert_eq!(terms("Hydrated transactions"), ["hydrat", "transact"]);
    }

    #[test]
    fn ranked_by_relevance_with_synonyms_prefixes_and_joined_name_words() {
        let tools = [
            tool(
                "eth_getBalance",
                "Returns the balance of the account of given address.",
            ),
            tool(
                "eth_blockNumber",
                "Returns the number of most recent block.",
            ),
            tool(
                "eth_getBlockByNumber",
                "Returns information about a block by number.",
            ),
            tool("eth_sendTransaction", "Signs and submits a transaction."),
            tool(
                "Filecoin.ChainGetTipSet",
                "There are not yet any comments for this method.",
            ),
        ];
        let index = Index::new(tools.iter().map(String::as_str));
        let top = |query| names(&index, query, &tools)[0].clone();
        assert_eq!(top("latest block"), "\"eth_blockNumber\"");
        assert_eq!(top("current block height"), "\"eth_blockNumber\"");
        assert_eq!(top("transfer ether"), "\"eth_sendTransaction\"");
        assert_eq!(top("wallet funds"), "\"eth_getBalance\"");
        assert_eq!(top("tipsets"), "\"Filecoin.ChainGetTipSet\"");
        assert!(names(&index, "zebra", &tools).is_empty());
        assert_eq!(index.search("  ").len(), 5);
    }

    #[test]
    fn a_descriptor_that_does_not_read_is_found_by_nothing() {
        let index = Index::new(["{", &tool("ok", "fine")]);
        assert_eq!(index.search("ok"), [1]);
        assert_eq!(index.search(""), [0, 1]);
    }
}

//! Fuzz targets on the stable toolchain: property tests (proptest) of the runtime's parsers
//! of untrusted input. The properties live in `fuzz_checks/` and are shared with the
//! cargo-fuzz targets in `fuzz/` (nightly, coverage-guided); here proptest generates the
//! input, both arbitrary bytes and structured near-valid messages.
//!
//! Needs the `fuzzing` feature (`mcp_runtime::fuzzing`):
//!
//! ```text
//! cargo test -p mcp-runtime --features fuzzing --test fuzz_props
//! ```
//!
//! CI runs each target for its default number of cases (about 20 s in all, debug build).
//! `PROPTEST_CASES` sets the number of cases of every target; a long session, in release:
//!
//! ```text
//! PROPTEST_CASES=1000000 cargo test -p mcp-runtime --features fuzzing --release \
//!     --test fuzz_props -- --test-threads 2
//! ```
//!
//! A failure is shrunk to a minimal input, printed, and saved to
//! `runtime/tests/fuzz_props.proptest-regressions`: commit that file, so the input is run
//! first from then on. Explicit regression tests for inputs that once failed are at the end.

mod fuzz_checks;

use fuzz_checks::uri_template::{Piece, LITERAL_CHARS};
use fuzz_checks::{authorization, headers, incoming, request_state, sse, uri_template};
use mcp_runtime::fuzzing::Payload;
use proptest::collection::vec;
use proptest::prelude::*;
use proptest::sample::select;
use serde_json::Value;

/// `cases` cases, unless `PROPTEST_CASES` says otherwise.
fn config(cases: u32) -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(cases);
    ProptestConfig {
        cases,
        // Shrinking a failure may take a while; CI stays bounded by the cases.
        max_shrink_iters: 2048,
        ..ProptestConfig::default()
    }
}

// ---- generators ----

/// JSON whitespace, mostly none.
fn ws() -> impl Strategy<Value = &'static str> {
    prop_oneof![8 => Just(""), 1 => Just(" "), 1 => select(vec!["\n", "\r\n\t ", "\t"])]
}

/// A JSON string literal for `text`: as serde_json writes it, or with escapes where none are
/// needed (`\/`, `\uXXXX` for every character), or a lone surrogate.
fn string_literal(text: String) -> impl Strategy<Value = String> {
    let plain = serde_json::to_string(&text).expect("a string serializes");
    let slashes = plain.replace('/', "\\/");
    let all_escaped = format!(
        "\"{}\"",
        text.encode_utf16()
            .map(|unit| format!("\\u{unit:04x}"))
            .collect::<String>()
    );
    prop_oneof![
        6 => Just(plain),
        1 => Just(slashes),
        1 => Just(all_escaped),
        1 => Just(format!("\"{}\\ud800\"", text.replace(['"', '\\'], ""))),
    ]
}

fn any_string() -> BoxedStrategy<String> {
    prop_oneof![
        3 => "[a-z/_.-]{0,12}",
        1 => any::<String>().prop_map(|s| s.chars().take(12).collect()),
    ]
    .prop_flat_map(string_literal)
    .boxed()
}

fn number() -> BoxedStrategy<String> {
    prop_oneof![
        4 => any::<i64>().prop_map(|n| n.to_string()),
        1 => any::<u64>().prop_map(|n| n.to_string()),
        1 => any::<f64>().prop_filter("finite", |f| f.is_finite()).prop_map(|f| format!("{f:e}")),
        1 => select(vec![
            "1e400", "-1e400", "123456789012345678901234567890", "-0", "0.0e0", "1E+2",
            "18446744073709551616", "-9223372036854775809", "1.5",
        ])
        .prop_map(String::from),
    ]
    .boxed()
}

/// Any JSON text, nested a few levels, with the generators' escapes and huge numbers.
fn json_text() -> BoxedStrategy<String> {
    let leaf = prop_oneof![
        select(vec!["null", "true", "false", "{}", "[]"]).prop_map(String::from),
        number(),
        any_string(),
    ];
    leaf.prop_recursive(4, 24, 5, |inner| {
        prop_oneof![
            vec(inner.clone(), 0..5).prop_map(|items| format!("[{}]", items.join(","))),
            vec((key(), ws(), inner), 0..5).prop_map(|members| object(&members)),
        ]
    })
    .boxed()
}

fn object(members: &[(String, &str, String)]) -> String {
    let members: Vec<String> = members
        .iter()
        .map(|(key, ws, value)| format!("{ws}{key}{ws}:{ws}{value}{ws}"))
        .collect();
    format!("{{{}}}", members.join(","))
}

/// A member name: one the reader knows (maybe escaped) or another.
fn key() -> BoxedStrategy<String> {
    prop_oneof![
        4 => select(vec![
            "jsonrpc", "id", "method", "params", "result", "error", "name", "uri", "arguments",
            "_meta", "taskId", "inputResponses", "requestState", "progressToken",
            "io.modelcontextprotocol/protocolVersion", "io.modelcontextprotocol/logLevel",
            "io.modelcontextprotocol/clientCapabilities", "x",
        ])
        .prop_map(String::from)
        .prop_flat_map(string_literal),
        1 => any_string(),
    ]
    .boxed()
}

fn method() -> BoxedStrategy<String> {
    prop_oneof![
        3 => select(vec!["tools/call", "prompts/get", "resources/read"]),
        1 => select(vec!["ping", "tools/list", "initialize", "notifications/initialized", "tasks/get"]),
    ]
    .prop_map(String::from)
    .prop_flat_map(string_literal)
    .boxed()
}

fn version() -> BoxedStrategy<String> {
    prop_oneof![
        4 => Just("2026-07-28".to_string()).prop_flat_map(string_literal),
        1 => json_text(),
    ]
    .boxed()
}

/// `_meta`: mostly an object of the members the runtime reads; sometimes anything.
fn meta() -> BoxedStrategy<String> {
    let member = prop_oneof![
        (
            Just("\"io.modelcontextprotocol/protocolVersion\"".to_string()),
            version()
        ),
        (
            Just("\"io.modelcontextprotocol/logLevel\"".to_string()),
            prop_oneof![
                select(vec!["\"debug\"", "\"error\"", "\"loud\"", "3"]).prop_map(String::from),
                json_text()
            ]
        ),
        (
            Just("\"io.modelcontextprotocol/clientCapabilities\"".to_string()),
            json_text()
        ),
        (Just("\"progressToken\"".to_string()), json_text()),
        (key(), json_text()),
    ];
    prop_oneof![
        5 => vec((member, ws()), 0..5).prop_map(|members| {
            let members: Vec<_> = members.into_iter().map(|((k, v), ws)| (k, ws, v)).collect();
            object(&members)
        }),
        1 => vec(version(), 0..2).prop_map(|items| format!("[{}]", items.join(","))),
        1 => json_text(),
    ]
    .boxed()
}

/// A call's params: mostly an object of its members, shuffled, sometimes twice the same.
fn params() -> BoxedStrategy<String> {
    let text_or_any = || prop_oneof![4 => any_string(), 1 => json_text()];
    let member = prop_oneof![
        (Just("\"name\"".to_string()), text_or_any()),
        (Just("\"uri\"".to_string()), text_or_any()),
        (Just("\"arguments\"".to_string()), json_text()),
        (Just("\"_meta\"".to_string()), meta()),
        (Just("\"taskId\"".to_string()), text_or_any()),
        (Just("\"inputResponses\"".to_string()), json_text()),
        (Just("\"requestState\"".to_string()), text_or_any()),
        (key(), json_text()),
    ];
    prop_oneof![
        6 => vec((member, ws()), 0..6).prop_map(|members| {
            let members: Vec<_> = members.into_iter().map(|((k, v), ws)| (k, ws, v)).collect();
            object(&members)
        }),
        1 => json_text(),
    ]
    .boxed()
}

/// A JSON-RPC message, near-valid: the envelope members in any order, each maybe missing,
/// of the wrong type, escaped or written twice, plus unknown members.
fn message() -> BoxedStrategy<String> {
    let jsonrpc = prop_oneof![
        8 => Just("\"2.0\"".to_string()),
        1 => select(vec!["\"2\\u002e0\"", "\"1.0\"", "2", "null"]).prop_map(String::from),
    ];
    let id = prop_oneof![4 => number(), 3 => any_string(), 1 => json_text()];
    let member = |name: &'static str, value: BoxedStrategy<String>| {
        (
            Just(name.to_string()).prop_flat_map(string_literal),
            ws(),
            value,
        )
    };
    (
        member("jsonrpc", jsonrpc.boxed()),
        prop::option::weighted(0.85, member("id", id.boxed())),
        prop::option::weighted(0.85, member("method", method().boxed())),
        prop::option::weighted(0.8, member("params", params().boxed())),
        prop::option::weighted(0.1, member("result", json_text().boxed())),
        prop::option::weighted(0.1, member("error", json_text().boxed())),
        vec((key(), ws(), json_text()), 0..2),
    )
        .prop_map(|(jsonrpc, id, method, params, result, error, extra)| {
            let mut members = vec![jsonrpc];
            members.extend([id, method, params, result, error].into_iter().flatten());
            members.extend(extra);
            members
        })
        .prop_shuffle()
        .prop_map(|members| object(&members))
        .boxed()
}

/// A message, a batch of them, or a message with one byte-level mutation.
fn body() -> BoxedStrategy<String> {
    prop_oneof![
        6 => message(),
        1 => vec(message(), 0..4).prop_map(|items| format!("[{}]", items.join(","))),
        2 => (message(), any::<prop::sample::Index>(), select(vec!["", "{", "}", "\"", ",", ":", "\\", "[", "]", " "]))
            .prop_map(|(text, at, insert)| {
                let at = at.index(text.len() + 1);
                let mut at = at.min(text.len());
                while !text.is_char_boundary(at) {
                    at -= 1;
                }
                // Drop one character at `at` and put `insert` in its place.
                let next = text[at..].chars().next().map_or(0, char::len_utf8);
                format!("{}{insert}{}", &text[..at], &text[at + next..])
            }),
    ]
    .boxed()
}

fn announced() -> impl Strategy<Value = Option<&'static str>> {
    prop_oneof![
        3 => Just(None),
        2 => select(vec!["tools/call", "prompts/get", "resources/read", "ping"]).prop_map(Some),
    ]
}

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Value::from),
        any::<String>().prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 32, 6, |inner| {
        prop_oneof![
            vec(inner.clone(), 0..6).prop_map(Value::Array),
            vec((any::<String>(), inner), 0..6)
                .prop_map(|members| Value::Object(members.into_iter().collect())),
        ]
    })
}

// ---- the targets ----

proptest! {
    #![proptest_config(config(3000))]

    /// Structured near-valid messages: the reader agrees with `serde_json::Value`.
    #[test]
    fn incoming_messages_agree_with_a_value_reading(text in body(), announced in announced()) {
        incoming::check_body(text.as_bytes(), announced);
    }
}

/// A call in any member order, its names and values maybe escaped, sometimes with its
/// target member twice or of the wrong type.
fn call_message() -> BoxedStrategy<String> {
    let literal = |text: &'static str| Just(text.to_string()).prop_flat_map(string_literal);
    let target = prop_oneof![
        4 => select(vec!["admin", "whoami", "file:///a", "a\"b"]).prop_map(String::from).prop_flat_map(string_literal),
        1 => any_string(),
        1 => json_text(),
    ];
    let params_member = prop_oneof![
        (prop_oneof![literal("name"), literal("uri")], target.clone()),
        (literal("arguments"), json_text()),
        (literal("_meta"), meta()),
        (key(), json_text()),
    ];
    let params = vec((params_member, ws()), 0..4).prop_map(|members| {
        let members: Vec<_> = members.into_iter().map(|((k, v), ws)| (k, ws, v)).collect();
        object(&members)
    });
    (
        (literal("jsonrpc"), ws(), literal("2.0")),
        (literal("id"), ws(), number()),
        (literal("method"), ws(), method()),
        (literal("params"), ws(), params),
        vec((key(), ws(), json_text()), 0..2),
    )
        .prop_map(|(jsonrpc, id, method, params, extra)| {
            let mut members = vec![jsonrpc, id, method, params];
            members.extend(extra);
            members
        })
        .prop_shuffle()
        .prop_map(|members| object(&members))
        .boxed()
}

/// A catalog's `call_tool` in any member order, its names and values maybe escaped, the inner
/// call's members too (its `name` sometimes twice, of the wrong type, or missing).
fn catalog_message() -> BoxedStrategy<String> {
    let literal = |text: &'static str| Just(text.to_string()).prop_flat_map(string_literal);
    let inner_name = prop_oneof![
        4 => select(vec!["get_balance", "audit_log", "call_tool", "a\"b"]).prop_map(String::from).prop_flat_map(string_literal),
        1 => any_string(),
        1 => json_text(),
    ];
    let inner_member = prop_oneof![
        3 => (literal("name"), inner_name),
        2 => (literal("arguments"), json_text()),
        1 => (key(), json_text()),
    ];
    let inner = vec((inner_member, ws()), 0..4).prop_map(|members| {
        let members: Vec<_> = members.into_iter().map(|((k, v), ws)| (k, ws, v)).collect();
        object(&members)
    });
    let outer_name = prop_oneof![4 => literal("call_tool"), 1 => literal("search_tools")];
    let params_member = prop_oneof![
        (literal("name"), outer_name),
        (
            literal("arguments"),
            prop_oneof![4 => inner, 1 => json_text()]
        ),
        (literal("_meta"), meta()),
    ];
    let params = vec((params_member, ws()), 1..4).prop_map(|members| {
        let members: Vec<_> = members.into_iter().map(|((k, v), ws)| (k, ws, v)).collect();
        object(&members)
    });
    (
        (literal("jsonrpc"), ws(), literal("2.0")),
        (literal("id"), ws(), number()),
        (literal("method"), ws(), literal("tools/call")),
        (literal("params"), ws(), params),
    )
        .prop_map(|(jsonrpc, id, method, params)| vec![jsonrpc, id, method, params])
        .prop_shuffle()
        .prop_map(|members| object(&members))
        .boxed()
}

proptest! {
    #![proptest_config(config(3000))]

    /// A catalog's `call_tool` is decided on the tool that runs, whatever the bytes.
    #[test]
    fn catalog_calls_are_decided_on_the_tool_that_runs(
        text in prop_oneof![4 => catalog_message(), 1 => call_message()],
        announced in prop_oneof![Just(None), Just(Some("tools/call"))],
    ) {
        if let Some(decision) = mcp_runtime::fuzzing::catalog_decision(&text, announced) {
            if decision.runs.is_some() {
                prop_assert_eq!(decision.authorized, decision.runs, "{}", text);
            }
        }
    }
}

proptest! {
    #![proptest_config(config(3000))]

    /// The authorization decision is taken on what runs, whatever the bytes.
    #[test]
    fn calls_are_authorized_as_they_run(
        text in prop_oneof![3 => call_message(), 1 => body()],
        announced in announced(),
    ) {
        authorization::check(text.as_bytes(), announced);
    }
}

proptest! {
    #![proptest_config(config(3000))]

    /// Arbitrary bytes (mostly JSON-ish): the reader never panics and agrees.
    #[test]
    fn incoming_bytes_agree_with_a_value_reading(
        bytes in prop_oneof![
            vec(any::<u8>(), 0..64),
            vec(select(b"{}[]\":,\\ 0123456789eE.-+tuflnrsaj".to_vec()), 0..64),
        ],
        announced in announced(),
    ) {
        incoming::check_body(&bytes, announced);
    }
}

proptest! {
    #![proptest_config(config(2000))]

    #[test]
    fn header_values_decode_as_a_strict_reference_does(
        value in prop_oneof![
            any::<String>(),
            "[A-Za-z0-9+/=]{0,12}".prop_map(|b| format!("=?base64?{b}?=")),
            "[ \t]?=\\?base64\\?[A-Za-z0-9+/=?]{0,9}\\?=[ \t]?",
        ],
        text in any::<String>(),
    ) {
        headers::check_decode(&value);
        headers::check_encoded_round_trip(&text);
    }

    #[test]
    fn param_headers_agree_with_their_arguments(
        argument in prop_oneof!["[a-z]{1,4}", any::<String>()],
        other in prop_oneof!["[a-z]{1,4}", any::<String>()],
        encoded in any::<bool>(),
        raw in vec(any::<u8>(), 0..16),
    ) {
        headers::check_string_param(&argument, &other, encoded, &raw);
        headers::check_string_param(&argument, &argument, !encoded, &raw);
    }

    #[test]
    fn integer_param_headers_name_exactly_their_argument(
        (argument, other) in prop_oneof![
            (any::<i64>(), any::<i64>()),
            // Near 2^53, where f64 stops holding every integer.
            (0i64..4, 0i64..4).prop_map(|(a, b)| ((1 << 53) - a, (1 << 53) - b)),
        ],
        fraction in any::<bool>(),
    ) {
        // B6: a fraction compares as f64, exact only up to 2^53.
        let exact = |n: i64| n.unsigned_abs() <= 1 << 53;
        let fraction = fraction && exact(argument) && exact(other);
        headers::check_integer_param(Value::from(argument), Value::from(other), fraction);
    }

    #[test]
    fn host_and_origin_accept_only_what_http_parses_to_an_allowed_host(
        value in prop_oneof![
            vec(any::<u8>(), 0..24),
            "\\[?(localhost|::1|127\\.0\\.0\\.1|example\\.com|evil|@|:|\\]|\\[|[0-9]){1,5}"
                .prop_map(String::into_bytes),
        ],
    ) {
        headers::check_host(&value);
        let mut origin = b"http://".to_vec();
        origin.extend(&value);
        headers::check_origin(&origin);
        headers::check_origin(&value);
    }

    #[test]
    fn allowed_hosts_are_accepted_in_any_case(
        name in select(vec!["localhost", "LocalHost", "127.0.0.1", "[::1]", "EXAMPLE.com"]),
        port in proptest::option::of(any::<u16>()),
    ) {
        headers::check_allowed_host(name, port);
    }

    #[test]
    fn last_event_ids_parse_as_the_grammar_says(
        id in prop_oneof![
            any::<String>(),
            "[ +]?[0-9]{0,11}-[+-]?[0-9]{0,21}[ \t]?",
        ],
        stream in any::<u32>(),
        sequence in any::<u64>(),
    ) {
        headers::check_last_event_id(&id);
        headers::check_event_id_round_trip(stream, sequence);
    }
}

fn literal() -> impl Strategy<Value = String> {
    vec(select(LITERAL_CHARS.chars().collect::<Vec<_>>()), 1..4)
        .prop_map(|chars| chars.into_iter().collect())
}

fn piece() -> impl Strategy<Value = Piece> {
    prop_oneof![
        literal().prop_map(Piece::Literal),
        (
            "[a-z]{1,3}",
            any::<bool>(),
            any::<String>().prop_filter("not empty", |v| !v.is_empty())
        )
            .prop_map(|(name, reserved, value)| Piece::Variable {
                name,
                reserved,
                value
            }),
    ]
}

proptest! {
    #![proptest_config(config(2000))]

    #[test]
    fn uri_templates_match_as_the_reference_does(
        template in "([a-c/.%{}+?#]|\\{\\+?[a-z]\\}){0,8}",
        uri in "[a-c/.%0-9A-F?#é]{0,16}",
    ) {
        uri_template::check_match(&template, &uri);
    }

    #[test]
    fn expanded_templates_match_their_values(pieces in vec(piece(), 0..7)) {
        uri_template::check_expansion(&pieces);
    }
}

proptest! {
    #![proptest_config(config(64))]

    /// Long URIs up to the limit, repetitive, against templates with many variables: bounded
    /// time.
    #[test]
    fn uri_templates_take_bounded_time(
        template in "([a-c/.-]|\\{\\+?[a-z]\\}){0,24}",
        unit in "[a-c/.%-]{1,4}",
        len in 0usize..9000,
    ) {
        let uri = unit.repeat(len / unit.len() + 1);
        uri_template::check_match(&template, &uri[..len.min(uri.len())]);
    }
}

proptest! {
    #![proptest_config(config(1000))]

    #[test]
    fn request_state_tokens_never_open(
        token in prop_oneof![
            any::<String>(),
            "[A-Za-z0-9_-]{0,40}\\.[A-Za-z0-9_-]{0,43}",
        ],
    ) {
        request_state::check_arbitrary_token(&token);
    }

    #[test]
    fn request_states_round_trip_and_a_flipped_bit_never_opens(
        answers in vec(("[a-z]{1,6}", json_value()), 0..3),
        saved in vec(("[a-z]{1,6}", json_value()), 0..3),
        asked in vec("[a-z]{1,6}", 0..3),
        name in any::<String>(),
        arguments in proptest::option::of(json_value()),
        flip in any::<usize>(),
    ) {
        // B7: serde_json reads some floats back one ulp off; keep to values that survive
        // their own text (the ignored regression test holds one that does not).
        let survives = |v: &Value| serde_json::from_str::<Value>(&v.to_string()).ok().as_ref() == Some(v);
        prop_assume!(answers.iter().chain(&saved).all(|(_, v)| survives(v)));
        let payload = Payload {
            answers: answers.into_iter().collect(),
            saved: saved.into_iter().collect(),
            asked,
        };
        request_state::check_seal_open(payload, &name, arguments.as_ref(), flip);
    }
}

/// JSON text for `value`: compact, or pretty with its line breaks as LF, CRLF or CR, maybe
/// with whitespace around.
fn json_layout(value: Value) -> impl Strategy<Value = Vec<u8>> {
    let compact = serde_json::to_string(&value).expect("serializes");
    let pretty = serde_json::to_string_pretty(&value).expect("serializes");
    (select(vec!["\n", "\r\n", "\r"]), any::<bool>(), ws(), ws()).prop_map(
        move |(newline, is_pretty, before, after)| {
            let text = match is_pretty {
                true => pretty.replace('\n', newline),
                false => compact.clone(),
            };
            format!("{before}{text}{after}").into_bytes()
        },
    )
}

proptest! {
    #![proptest_config(config(1000))]

    #[test]
    fn sse_events_read_back_as_the_same_json(
        json in json_value().prop_flat_map(json_layout),
        cuts in vec(0usize..2000, 0..4),
    ) {
        sse::check_frame(&json, &cuts);
    }
}

// ---- regression tests: inputs the targets once failed on ----
//
// The ignored ones are bugs reported, not fixed here (their fix lies outside this crate's
// fuzzing files): each asserts the right behaviour, and fails until the bug is fixed. Run them
// with `-- --ignored`.

/// B1 (fixed): a method written with an escape is the same method.
#[test]
fn b1_an_escaped_method_is_read() {
    let read = mcp_runtime::fuzzing::read_message(
        r#"{"jsonrpc":"2.0","id":1,"method":"tools\/list"}"#,
        None,
    );
    assert!(
        matches!(read, Ok(mcp_runtime::fuzzing::Message::Request { ref method, .. }) if method == "tools/list"),
        "{read:?}"
    );
}

/// B6: an integer header naming a neighbouring integer is refused.
#[test]
fn b6_integer_headers_are_compared_exactly() {
    headers::check_integer_param(Value::from(u64::MAX), Value::from(u64::MAX - 1), false);
    headers::check_integer_param(Value::from(1i64 << 53), Value::from((1i64 << 53) + 1), true);
}

/// B7: a float saved in requestState comes back as itself.
#[test]
#[ignore = "B7: serde_json without float_roundtrip reads some floats back one ulp off"]
fn b7_saved_floats_round_trip() {
    let value: Value = serde_json::json!({ "": 1.4227471620945367e222 });
    let payload = Payload {
        saved: [("a".to_string(), value)].into_iter().collect(),
        ..Payload::default()
    };
    request_state::check_seal_open(payload, "", None, 0);
}

/// A notification of a call method keeps no params (B5), and never panics.
#[test]
fn b5_a_notification_of_a_call_method() {
    incoming::check_body(
        br#"{"jsonrpc":"2.0","method":"tools/call","params":{}}"#,
        None,
    );
}

/// L2: `::1:` is read as the host `::1`.
#[test]
fn l2_an_unbracketed_ipv6_host() {
    headers::check_host(b"::1:");
}

/// L3, found by cargo-fuzz: an origin whose "scheme" is `::0`.
#[test]
fn l3_an_origin_scheme_is_not_read() {
    headers::check_origin(b"::0://loCalhost");
    headers::check_origin(b"  2://127.0.0.1         ");
}

use super::*;
use crate::catalog::{Catalog, Descriptor};
use crate::dispatch::Contract;
use std::time::Duration;

const TOOL: &str = r#"{"name":"search","inputSchema":{"type":"object"}}"#;
static CATALOG: Catalog = Catalog {
    tools: &[Descriptor {
        key: "search",
        json: [TOOL; 4],
    }],
    ..Catalog::empty("limits", "1")
};

/// A contract whose `search` tool is limited to 2/min.
struct Limited2;

impl Dispatch for Limited2 {
    fn contract(&self) -> &'static Contract {
        fn rate_limit(method: &str, key: &str) -> Option<Rate> {
            (method == "tools/call" && key == "search").then_some(Rate::new(2, 60_000))
        }
        static CONTRACT: Contract = Contract::new(&CATALOG).with_rate_limits(&rate_limit);
        &CONTRACT
    }
}

/// No limits in the contract.
struct Plain;

impl Dispatch for Plain {
    fn contract(&self) -> &'static Contract {
        static CONTRACT: Contract = Contract::new(&CATALOG);
        &CONTRACT
    }
}

fn call(text: &str) -> crate::engine::incoming::Incoming<'_> {
    crate::engine::incoming::read(text, None).unwrap()
}

fn check(
    limiter: &Limiter,
    dispatch: &dyn Dispatch,
    caller: Caller<'_>,
    text: &str,
) -> Result<(), Limited> {
    match call(text) {
        crate::engine::incoming::Incoming::Request(request) => {
            match request.target(dispatch.contract()) {
                Some(target) => {
                    let bucket = target.limit_key(dispatch.contract());
                    let call = Call {
                        method: target.method,
                        key: &target.key,
                        bucket: &bucket,
                    };
                    limiter.check(dispatch, caller, call)
                }
                None => Ok(()),
            }
        }
        _ => unreachable!(),
    }
}

const SEARCH: &str = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search"}}"#;
const LIST: &str = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#;

#[test]
fn rates_parse_and_show() {
    for (text, count, ms, shown) in [
        ("10/s", 10, 1_000, "10/s"),
        ("60/min", 60, 60_000, "60/min"),
        (" 1000/h ", 1000, 3_600_000, "1000/h"),
        ("5/30s", 5, 30_000, "5/30s"),
        ("5/500ms", 5, 500, "5/500ms"),
    ] {
        let rate: Rate = text.parse().unwrap();
        assert_eq!(
            (rate.count(), rate.per()),
            (count, Duration::from_millis(ms))
        );
        assert_eq!(rate.to_string(), shown);
    }
    for bad in [
        "",
        "10",
        "0/s",
        "-1/s",
        "x/s",
        "10/",
        "10/fortnight",
        "10/0s",
        "99999999999/s",
    ] {
        assert!(bad.parse::<Rate>().is_err(), "{bad}");
    }
}

#[test]
fn rate_errors_are_typed_and_display_the_old_messages() {
    let expected = "expected N/PERIOD, e.g. 10/s, 60/min, 1000/h or 5/30s";
    for bad in ["10", "x/s", "-1/s"] {
        let error = bad.parse::<Rate>().unwrap_err();
        assert_eq!(error, ParseRateError::NotARate, "{bad}");
        assert_eq!(error.to_string(), expected);
    }
    let error = "0/s".parse::<Rate>().unwrap_err();
    assert_eq!(error, ParseRateError::ZeroCount);
    assert_eq!(error.to_string(), "the count must be at least 1");
    let error = "10/fortnight".parse::<Rate>().unwrap_err();
    let ParseRateError::Period { reason } = &error else {
        panic!("a period error expected, got {error:?}");
    };
    let why = crate::durations::duration("fortnight", Duration::from_millis(1)).unwrap_err();
    assert_eq!(reason, &why);
    assert_eq!(error.to_string(), format!("{why} ({expected})"));
    assert_eq!(
        ParseRateError::ZeroPeriod.to_string(),
        "the period must be at least 1ms"
    );
}

#[test]
fn nothing_to_limit_is_no_limiter() {
    assert!(Limiter::of(None, &Plain, None).is_none());
    assert!(Limiter::of(None, &Limited2, None).is_some());
    assert!(Limiter::of(Some(&RateLimits::new()), &Plain, None).is_some());
}

#[test]
fn the_contracts_limit_per_caller_and_a_flag_over_it() {
    let limiter = Limiter::of(None, &Limited2, None).unwrap();
    let alice = Caller::Peer(peer_key("10.0.0.1".parse().unwrap()));
    let bob = Caller::Peer(peer_key("10.0.0.2".parse().unwrap()));
    assert!(check(&limiter, &Limited2, alice, SEARCH).is_ok());
    assert!(check(&limiter, &Limited2, alice, SEARCH).is_ok());
    let limited = check(&limiter, &Limited2, alice, SEARCH).unwrap_err();
    assert_eq!(limited.limit, 2);
    // One token back in 30 s.
    assert!(
        (29_000..=30_000).contains(&limited.retry_after_ms),
        "{limited:?}"
    );
    assert_eq!(limited.retry_after_secs(), 30);
    assert_eq!(limited.error().code, RATE_LIMITED);
    // Another caller has a bucket of its own; a list is not a call.
    assert!(check(&limiter, &Limited2, bob, SEARCH).is_ok());
    assert!(check(&limiter, &Limited2, alice, LIST).is_ok());

    let flags = RateLimits::new().per_tool("search", Rate::new(1, 1_000));
    let limiter = Limiter::of(Some(&flags), &Limited2, None).unwrap();
    assert!(check(&limiter, &Limited2, alice, SEARCH).is_ok());
    let limited = check(&limiter, &Limited2, alice, SEARCH).unwrap_err();
    assert_eq!(limited.limit, 1);
    assert!(limited.retry_after_ms <= 1_000);
}

#[test]
fn a_refusal_by_the_tool_gives_the_callers_token_back() {
    let limits = RateLimits::new()
        .per_caller(Some(Rate::new(2, 60_000)))
        .per_tool("search", Rate::new(1, 60_000));
    let limiter = Limiter::of(Some(&limits), &Plain, None).unwrap();
    let me = Caller::Local;
    let other = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"other"}}"#;
    assert!(check(&limiter, &Plain, me, SEARCH).is_ok());
    // Refused by the tool's bucket: the caller's second token stays.
    assert_eq!(check(&limiter, &Plain, me, SEARCH).unwrap_err().limit, 1);
    assert!(check(&limiter, &Plain, me, other).is_ok());
    // Now the caller's bucket is empty.
    assert_eq!(check(&limiter, &Plain, me, other).unwrap_err().limit, 2);
}

#[test]
fn many_callers_never_grow_the_table_past_its_bound() {
    let limits = RateLimits::new()
        .per_caller(Some(Rate::new(5, 60_000)))
        .max_callers(256);
    let limiter = Limiter::of(Some(&limits), &Plain, None).unwrap();
    for i in 0..20_000u32 {
        let ip = IpAddr::from(
            (0xfd00_0000_0000_0000_0000_0000_0000_0000u128 | u128::from(i)).to_be_bytes(),
        );
        assert!(check(&limiter, &Plain, Caller::Peer(peer_key(ip)), SEARCH).is_ok());
    }
    assert!(limiter.len() <= 256, "{}", limiter.len());
}

#[test]
fn buckets_of_a_short_period_coming_in_never_reset_one_of_a_long_period() {
    let mut shard = Buckets::default();
    let long = Bucket {
        tokens: 0.0,
        at_ms: 0,
        per_ms: 3_600_000,
    };
    shard.insert(1, long);
    for key in 2..=8 {
        let short = Bucket {
            tokens: 4.0,
            at_ms: 0,
            per_ms: 500,
        };
        shard.insert(key, short);
    }
    // A second later the short buckets are full again, and go; the hour's empty one stays.
    evict(&mut shard, 8, 1_000);
    assert_eq!(shard.keys().copied().collect::<Vec<_>>(), [1]);
}

static TEMPLATES: Catalog = Catalog {
    resource_templates: &[Descriptor {
        key: "logs://{service}",
        json: [r#"{"uriTemplate":"logs://{service}","name":"logs"}"#; 4],
    }],
    ..Catalog::empty("limits", "1")
};

/// A contract whose `logs://{service}` template is limited to 2/min.
struct LimitedTemplate;

impl Dispatch for LimitedTemplate {
    fn contract(&self) -> &'static Contract {
        fn rate_limit(method: &str, key: &str) -> Option<Rate> {
            let matches = key == "logs://{service}"
                || crate::uri_template::match_uri("logs://{service}", key).is_some();
            (method == "resources/read" && matches).then_some(Rate::new(2, 60_000))
        }
        static CONTRACT: Contract = Contract::new(&TEMPLATES).with_rate_limits(&rate_limit);
        &CONTRACT
    }
}

#[test]
fn a_templates_limit_is_one_bucket_whatever_its_variables() {
    let limiter = Limiter::of(None, &LimitedTemplate, None).unwrap();
    let read = |service: &str| {
        let text = format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{{"uri":"logs://{service}"}}}}"#
        );
        check(&limiter, &LimitedTemplate, Caller::Local, &text)
    };
    assert!(read("a").is_ok());
    assert!(read("b").is_ok());
    assert_eq!(read("c").unwrap_err().limit, 2);
}

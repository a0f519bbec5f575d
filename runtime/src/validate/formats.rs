//! The `format`s the generated checks enforce, each a strict, hand-written checker of the RFC
//! that defines it: `date-time`, `date`, `time` (RFC 3339), `uuid` (RFC 9562's text form),
//! `email` (RFC 5321's dot-atom mailbox at a host name or an address literal), `hostname`
//! (RFC 1123), `uri` (an absolute RFC 3986 URI), `ipv4` (dotted quad, no leading zeros) and
//! `ipv6` (RFC 4291's text forms). Other formats are annotations and are not checked.

use std::net::Ipv6Addr;

/// The checker of `format`, when this module has one.
pub fn checker(format: &str) -> Option<fn(&str) -> bool> {
    Some(match format {
        "date-time" => date_time,
        "date" => date,
        "time" => time,
        "uuid" => uuid,
        "email" => email,
        "hostname" => hostname,
        "uri" => uri,
        "ipv4" => ipv4,
        "ipv6" => ipv6,
        _ => return None,
    })
}

fn digits(s: &[u8]) -> Option<u32> {
    if s.is_empty() || !s.iter().all(u8::is_ascii_digit) {
        return None;
    }
    Some(s.iter().fold(0, |n, d| n * 10 + u32::from(d - b'0')))
}

/// RFC 3339 `full-date`: `YYYY-MM-DD`, a day that exists (leap years included).
pub fn date(value: &str) -> bool {
    let b = value.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return false;
    }
    let (Some(year), Some(month), Some(day)) =
        (digits(&b[0..4]), digits(&b[5..7]), digits(&b[8..10]))
    else {
        return false;
    };
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    let days = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    (1..=days).contains(&day)
}

/// RFC 3339 `full-time`: `HH:MM:SS`, optional fraction, then `Z` or `±HH:MM`. A leap second
/// (`:60`) is accepted.
pub fn time(value: &str) -> bool {
    let b = value.as_bytes();
    if b.len() < 9 || b[2] != b':' || b[5] != b':' {
        return false;
    }
    let (Some(hour), Some(minute), Some(second)) =
        (digits(&b[0..2]), digits(&b[3..5]), digits(&b[6..8]))
    else {
        return false;
    };
    if hour > 23 || minute > 59 || second > 60 {
        return false;
    }
    let mut rest = &b[8..];
    if let Some(fraction) = rest.strip_prefix(b".") {
        let n = fraction.iter().take_while(|c| c.is_ascii_digit()).count();
        if n == 0 {
            return false;
        }
        rest = &fraction[n..];
    }
    match rest {
        [b'Z' | b'z'] => true,
        [b'+' | b'-', h1, h2, b':', m1, m2] => {
            matches!((digits(&[*h1, *h2]), digits(&[*m1, *m2])), (Some(h), Some(m)) if h <= 23 && m <= 59)
        }
        _ => false,
    }
}

/// RFC 3339 `date-time`: a `full-date`, `T` (or `t`), a `full-time`.
pub fn date_time(value: &str) -> bool {
    let b = value.as_bytes();
    b.len() > 11
        && matches!(b[10], b'T' | b't')
        && value.is_char_boundary(10)
        && date(&value[..10])
        && time(&value[11..])
}

/// `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx`, hexadecimal digits of either case.
pub fn uuid(value: &str) -> bool {
    let b = value.as_bytes();
    b.len() == 36
        && b.iter().enumerate().all(|(i, c)| match i {
            8 | 13 | 18 | 23 => *c == b'-',
            _ => c.is_ascii_hexdigit(),
        })
}

/// RFC 1123 host name: dot-separated labels of 1 to 63 letters, digits and hyphens, no label
/// starting or ending with a hyphen, 253 characters at most (a final dot allowed).
pub fn hostname(value: &str) -> bool {
    let name = value.strip_suffix('.').unwrap_or(value);
    !name.is_empty()
        && name.len() <= 253
        && name.split('.').all(|label| {
            let b = label.as_bytes();
            !b.is_empty()
                && b.len() <= 63
                && b.iter().all(|c| c.is_ascii_alphanumeric() || *c == b'-')
                && b[0] != b'-'
                && b[b.len() - 1] != b'-'
        })
}

/// A mailbox: a dot-atom local part (RFC 5322 `atext`, no empty atom), `@`, then a host name or
/// an address literal (`[192.0.2.1]`, `[IPv6:2001:db8::1]`). Quoted local parts are refused.
pub fn email(value: &str) -> bool {
    let Some((local, domain)) = value.rsplit_once('@') else {
        return false;
    };
    let atext = |c: u8| c.is_ascii_alphanumeric() || b"!#$%&'*+-/=?^_`{|}~".contains(&c);
    let local_ok = !local.is_empty()
        && local.len() <= 64
        && local
            .split('.')
            .all(|atom| !atom.is_empty() && atom.bytes().all(atext));
    if !local_ok {
        return false;
    }
    match domain.strip_prefix('[').and_then(|d| d.strip_suffix(']')) {
        Some(literal) => match literal.strip_prefix("IPv6:") {
            Some(v6) => ipv6(v6),
            None => ipv4(literal),
        },
        None => hostname(domain),
    }
}

/// A dotted quad of decimal numbers 0 to 255, without leading zeros.
pub fn ipv4(value: &str) -> bool {
    let mut parts = 0;
    for part in value.split('.') {
        parts += 1;
        let b = part.as_bytes();
        if b.is_empty() || b.len() > 3 || (b.len() > 1 && b[0] == b'0') {
            return false;
        }
        match digits(b) {
            Some(n) if n <= 255 => {}
            _ => return false,
        }
    }
    parts == 4
}

/// RFC 4291 text forms (`::` compression, an embedded IPv4 tail); no zone index.
pub fn ipv6(value: &str) -> bool {
    // The standard library's parser follows RFC 4291 and refuses zones and brackets.
    value.len() <= 45 && value.parse::<Ipv6Addr>().is_ok()
}

/// An absolute RFC 3986 URI: a scheme (a letter, then letters, digits, `+`, `-`, `.`), `:`,
/// then only URI characters, every `%` followed by two hexadecimal digits, brackets only around
/// an IP literal host.
pub fn uri(value: &str) -> bool {
    let Some((scheme, rest)) = value.split_once(':') else {
        return false;
    };
    let s = scheme.as_bytes();
    if s.is_empty()
        || !s[0].is_ascii_alphabetic()
        || !s
            .iter()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'+' | b'-' | b'.'))
    {
        return false;
    }
    let b = rest.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c == b'%' {
            if !(b.get(i + 1).is_some_and(u8::is_ascii_hexdigit)
                && b.get(i + 2).is_some_and(u8::is_ascii_hexdigit))
            {
                return false;
            }
            i += 3;
            continue;
        }
        let allowed = c.is_ascii_alphanumeric()
            || b"-._~".contains(&c)
            || b":/?#@".contains(&c)
            || b"!$&'()*+,;=".contains(&c)
            || c == b'['
            || c == b']';
        if !allowed {
            return false;
        }
        i += 1;
    }
    brackets_ok(rest)
}

/// `[` and `]` appear only as one pair around the host of the authority, holding an IPv6
/// address or an `IPvFuture` (`v1.x`).
fn brackets_ok(rest: &str) -> bool {
    if !rest.contains(['[', ']']) {
        return true;
    }
    let Some(authority) = rest.strip_prefix("//") else {
        return false;
    };
    let end = authority.find(['/', '?', '#']).unwrap_or(authority.len());
    let (authority, after) = authority.split_at(end);
    if after.contains(['[', ']']) {
        return false;
    }
    let host_port = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let Some(inner) = host_port.strip_prefix('[') else {
        return false;
    };
    let Some((literal, port)) = inner.split_once(']') else {
        return false;
    };
    let port_ok = port.is_empty()
        || port
            .strip_prefix(':')
            .is_some_and(|p| p.bytes().all(|c| c.is_ascii_digit()));
    let literal_ok = ipv6(literal)
        || (literal.starts_with(['v', 'V'])
            && literal.contains('.')
            && !literal.contains(['[', ']']));
    port_ok && literal_ok
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(name: &str, f: fn(&str) -> bool, good: &[&str], bad: &[&str]) {
        for value in good {
            assert!(f(value), "{name} must accept {value:?}");
        }
        for value in bad {
            assert!(!f(value), "{name} must refuse {value:?}");
        }
    }

    #[test]
    fn dates() {
        check(
            "date",
            date,
            &["2024-02-29", "2000-02-29", "1999-12-31", "0001-01-01"],
            &[
                "2023-02-29",
                "1900-02-29",
                "2024-13-01",
                "2024-00-10",
                "2024-04-31",
                "2024-1-01",
                "24-01-01",
                "2024/01/01",
                "2024-01-01T",
                "",
                "２０２４-01-01",
                "2024-01-00",
            ],
        );
    }

    #[test]
    fn times() {
        check(
            "time",
            time,
            &[
                "23:59:59Z",
                "00:00:00z",
                "12:30:00.123+02:00",
                "23:59:60Z",
                "08:00:00-05:30",
            ],
            &[
                "24:00:00Z",
                "12:60:00Z",
                "12:00:61Z",
                "12:00:00",
                "12:00:00.Z",
                "12:00Z",
                "12:00:00+2:00",
                "12:00:00+24:00",
                "12:00:00 Z",
            ],
        );
    }

    #[test]
    fn date_times() {
        check(
            "date-time",
            date_time,
            &[
                "2024-02-29T12:00:00Z",
                "1985-04-12t23:20:50.52z",
                "1996-12-19T16:39:57-08:00",
            ],
            &[
                "2024-02-30T12:00:00Z",
                "2024-02-29 12:00:00Z",
                "2024-02-29T12:00:00",
                "2024-02-29",
                "2024-02-29T25:00:00Z",
                "2024-02-29Té2:00:00Z",
                "",
            ],
        );
    }

    #[test]
    fn uuids() {
        check(
            "uuid",
            uuid,
            &[
                "123e4567-e89b-12d3-a456-426614174000",
                "00000000-0000-0000-0000-000000000000",
                "ABCDEF01-2345-6789-abcd-ef0123456789",
            ],
            &[
                "123e4567e89b12d3a456426614174000",
                "123e4567-e89b-12d3-a456-42661417400",
                "123e4567-e89b-12d3-a456-4266141740000",
                "g23e4567-e89b-12d3-a456-426614174000",
                "{123e4567-e89b-12d3-a456-426614174000}",
                "123e4567-e89b_12d3-a456-426614174000",
            ],
        );
    }

    #[test]
    fn hostnames() {
        let long_label = "a".repeat(64);
        let long_name = [
            "a".repeat(63),
            "b".repeat(63),
            "c".repeat(63),
            "d".repeat(63),
        ]
        .join(".");
        check(
            "hostname",
            hostname,
            &[
                "example.com",
                "localhost",
                "a-b.c",
                "xn--bcher-kva.example",
                "example.com.",
                "1.2.3",
            ],
            &[
                "",
                "-a.com",
                "a-.com",
                "a..b",
                "a_b.com",
                &long_label,
                &long_name,
                "exa mple.com",
                ".",
            ],
        );
    }

    #[test]
    fn emails() {
        check(
            "email",
            email,
            &[
                "joe@example.com",
                "first.last+tag@sub.example.org",
                "x@localhost",
                "o'neil@example.com",
                "a@[192.0.2.1]",
                "a@[IPv6:2001:db8::1]",
            ],
            &[
                "",
                "joe",
                "@example.com",
                "joe@",
                "joe@@example.com",
                ".joe@example.com",
                "jo..e@example.com",
                "joe.@example.com",
                "jo e@example.com",
                "joe@exa_mple.com",
                "joe@[300.0.0.1]",
                "\"joe\"@example.com",
                "joe@-example.com",
            ],
        );
    }

    #[test]
    fn ipv4s() {
        check(
            "ipv4",
            ipv4,
            &["0.0.0.0", "192.168.0.1", "255.255.255.255", "10.0.0.10"],
            &[
                "256.0.0.1",
                "1.2.3",
                "1.2.3.4.5",
                "01.2.3.4",
                "1.2.3.-4",
                "1.2.3.4 ",
                "a.b.c.d",
                "",
                "1..2.3",
                "1.2.3.4/8",
                "1.2.3.١",
            ],
        );
    }

    #[test]
    fn ipv6s() {
        check(
            "ipv6",
            ipv6,
            &[
                "::",
                "::1",
                "2001:db8::1",
                "fe80::1:2:3:4",
                "::ffff:192.0.2.1",
                "1:2:3:4:5:6:7:8",
            ],
            &[
                "",
                ":::",
                "1:2:3:4:5:6:7:8:9",
                "2001:db8::1::2",
                "fe80::1%eth0",
                "[::1]",
                "12345::",
                "1.2.3.4",
                "g::1",
            ],
        );
    }

    #[test]
    fn uris() {
        check(
            "uri",
            uri,
            &[
                "https://example.com/a?b=c#d",
                "urn:isbn:0451450523",
                "mailto:joe@example.com",
                "http://[::1]:8080/x",
                "file:///tmp/a%20b",
                "tag:example.com,2024:x",
                "http://user@[2001:db8::1]/",
                "a+b-c.d:x",
            ],
            &[
                "",
                "example.com",
                "/relative/path",
                "https://exa mple.com",
                "1http://x",
                "http://x/%zz",
                "http://x/%2",
                "http://x/\u{e9}",
                "http://[::1/",
                "http://x/[y]",
                "http://[zz]/",
                ":nothing",
                "http://x/<y>",
            ],
        );
    }

    #[test]
    fn the_table_names_every_checker() {
        for name in [
            "date-time",
            "date",
            "time",
            "uuid",
            "email",
            "hostname",
            "uri",
            "ipv4",
            "ipv6",
        ] {
            assert!(checker(name).is_some(), "{name}");
        }
        assert!(checker("regex").is_none());
    }
}

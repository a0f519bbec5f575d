//! Durations as settings write them (`250ms`, `30s`, `10m`, `1h`, `1h30m`): read by the flags
//! ([`crate::entry`]) and by a rate's period ([`crate::rate_limit::Rate`]), written back in
//! the form they are read.

use std::time::Duration;

/// The longest duration accepted: a year (larger values are surely a mistake, and adding them
/// to an instant could overflow).
pub(crate) const MAX_DURATION: Duration = Duration::from_secs(365 * 24 * 60 * 60);

/// The units of [`duration`], longest first, with their length in milliseconds.
const UNITS: [(&str, u64); 5] = [
    ("d", 24 * 60 * 60 * 1000),
    ("h", 60 * 60 * 1000),
    ("m", 60 * 1000),
    ("s", 1000),
    ("ms", 1),
];

/// A duration: one or more `NUMBER UNIT` pairs, the units `ms`, `s`, `m`, `h`, `d` (`250ms`,
/// `30s`, `1h30m`); at least `min` and at most [`MAX_DURATION`].
pub(crate) fn duration(text: &str, min: Duration) -> Result<Duration, String> {
    let text = text.trim();
    if text.is_empty() {
        return Err("empty: expected a duration such as 30s, 10m, 1h or 250ms".into());
    }
    let mut rest = text;
    let mut millis: u64 = 0;
    while !rest.is_empty() {
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        let unit_len = rest[digits..]
            .bytes()
            .take_while(u8::is_ascii_alphabetic)
            .count();
        let (number, unit) = (&rest[..digits], &rest[digits..digits + unit_len]);
        if number.is_empty() {
            return Err(format!(
                "not a duration: expected a whole number and a unit (ms, s, m, h, d), e.g. 30s{}",
                if rest.starts_with('-') {
                    " (durations cannot be negative)"
                } else if rest.starts_with('.') || rest[digits..].starts_with('.') {
                    " (no fractions: 1500ms, not 1.5s)"
                } else {
                    ""
                }
            ));
        }
        if unit.is_empty() {
            return Err(format!(
                "{number} needs a unit: ms, s, m, h or d (e.g. {number}s){}",
                if rest[digits..].starts_with('.') {
                    "; no fractions: 1500ms, not 1.5s"
                } else {
                    ""
                }
            ));
        }
        let Some((_, per)) = UNITS.iter().find(|(name, _)| *name == unit) else {
            return Err(format!(
                "unknown unit `{unit}`: use ms, s, m, h or d (e.g. 30s, 10m, 1h)"
            ));
        };
        millis = number
            .parse::<u64>()
            .ok()
            .and_then(|n| n.checked_mul(*per))
            .and_then(|n| n.checked_add(millis))
            .ok_or_else(too_long)?;
        rest = &rest[digits + unit_len..];
    }
    let value = Duration::from_millis(millis);
    if value > MAX_DURATION {
        return Err(too_long());
    }
    if value < min {
        return Err(if min == Duration::from_millis(1) {
            "must be more than zero".into()
        } else {
            format!("must be at least {}", show_duration(min))
        });
    }
    Ok(value)
}

fn too_long() -> String {
    format!("too long: at most {}", show_duration(MAX_DURATION))
}

/// `duration` in the longest unit that writes it exactly (`30m`, `250ms`, `1h30m`).
pub(crate) fn show_duration(duration: Duration) -> String {
    let mut millis = duration.as_millis() as u64;
    if millis == 0 {
        return "0s".into();
    }
    let mut shown = String::new();
    for (unit, per) in UNITS {
        if millis >= per && (millis % per == 0 || per >= 60 * 1000) {
            shown.push_str(&format!("{}{unit}", millis / per));
            millis %= per;
        }
        if millis == 0 {
            break;
        }
    }
    shown
}

//! Near misses of names: `page_size` for `page-size`, `stock_search` for `stock.search`.
//!
//! Used on error paths only (a refused member, an unknown tool or prompt), and bounded there:
//! names past [`LONGEST`] characters are never compared, and the comparison is a banded
//! edit distance that gives up past [`MOST`] edits, so it costs a few steps per character.

/// Names longer than this (in characters) are not compared: too long to be a slip.
pub(crate) const LONGEST: usize = 256;

/// The most edits a near miss is away.
const MOST: usize = 2;

/// The edit distance of `a` and `b` when it is at most 2 (`None` past that, or for a name
/// longer than [`LONGEST`]). Case, and the separators `-`, `_`, `.` and `/`, count as no
/// edit: a model writing `page_size` or `pageSize` for `page-size`, or `stock_search` for
/// `stock.search`, is near.
pub(crate) fn distance(a: &str, b: &str) -> Option<usize> {
    if a.len() > 4 * LONGEST || b.len() > 4 * LONGEST {
        return None;
    }
    let fold = |name: &str| -> Vec<char> {
        name.chars()
            .filter(|c| !matches!(c, '-' | '_' | '.' | '/'))
            .map(|c| c.to_ascii_lowercase())
            .collect()
    };
    let (a, b) = (fold(a), fold(b));
    if a.len() > LONGEST || b.len() > LONGEST || a.len().abs_diff(b.len()) > MOST {
        return None;
    }
    // Levenshtein over the band |i - j| <= MOST only: a cell outside it is more than MOST
    // edits away whatever follows.
    let far = MOST + 1;
    let mut row: Vec<usize> = (0..=b.len()).map(|j| j.min(far)).collect();
    let mut next = vec![far; b.len() + 1];
    for (i, ca) in a.iter().enumerate() {
        let low = (i + 1).saturating_sub(MOST);
        let high = (i + 1 + MOST).min(b.len());
        next.fill(far);
        next[0] = (i + 1).min(far);
        let mut best = next[0];
        for j in low.max(1)..=high {
            let cost = usize::from(*ca != b[j - 1]);
            let cell = (row[j - 1] + cost).min(row[j] + 1).min(next[j - 1] + 1);
            next[j] = cell.min(far);
            best = best.min(next[j]);
        }
        if best >= far {
            return None;
        }
        std::mem::swap(&mut row, &mut next);
    }
    Some(row[b.len()]).filter(|&d| d <= MOST)
}

/// The candidate nearest `given` (the first of the nearest), other than `given` itself: one
/// edit away for a name of up to five characters, two for a longer one.
pub(crate) fn nearest<'c>(
    given: &str,
    candidates: impl IntoIterator<Item = &'c str>,
) -> Option<&'c str> {
    let most = (given.chars().count() / 3).clamp(1, MOST);
    candidates
        .into_iter()
        .filter(|candidate| *candidate != given)
        .filter_map(|candidate| Some((distance(candidate, given)?, candidate)))
        .filter(|(d, _)| *d <= most)
        .min_by_key(|(d, _)| *d)
        .map(|(_, candidate)| candidate)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn separators_and_case_are_no_edit() {
        assert_eq!(distance("page_size", "page-size"), Some(0));
        assert_eq!(distance("pageSize", "page-size"), Some(0));
        assert_eq!(distance("stock_search", "stock.search"), Some(0));
        assert_eq!(distance("stock.serch", "stock.search"), Some(1));
        assert_eq!(distance("kitten", "sitting"), None);
        assert_eq!(distance("kiten", "kitten"), Some(1));
        assert_eq!(distance("abc", "abcdef"), None);
        assert_eq!(distance("", "ab"), Some(2));
        assert_eq!(distance("ab", "ba"), Some(2));
    }

    #[test]
    fn the_nearest_is_picked_and_long_names_are_not_compared() {
        let names = ["stock.search", "stock.quote", "news.search"];
        assert_eq!(nearest("stock_search", names), Some("stock.search"));
        assert_eq!(nearest("stock.qoute", names), Some("stock.quote"));
        assert_eq!(nearest("weather", names), None);
        assert_eq!(nearest("stock.search", names), None);
        // Short names take one edit at most.
        assert_eq!(nearest("ab", ["xy", "ax"]), Some("ax"));
        let long = "a".repeat(LONGEST + 1);
        assert_eq!(nearest(&long, [long[1..].as_ref()]), None);
        assert_eq!(distance(&long, &long), None);
    }

    #[test]
    fn the_band_agrees_with_a_full_table() {
        fn full(a: &str, b: &str) -> usize {
            let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
            let mut row: Vec<usize> = (0..=b.len()).collect();
            for (i, ca) in a.iter().enumerate() {
                let mut next = vec![i + 1];
                for (j, cb) in b.iter().enumerate() {
                    let cost = usize::from(ca != cb);
                    next.push((row[j] + cost).min(row[j + 1] + 1).min(next[j] + 1));
                }
                row = next;
            }
            row[b.len()]
        }
        let words = [
            "", "a", "ab", "abc", "acb", "bca", "abcd", "xbcd", "abdc", "dcba", "aabb",
        ];
        for a in words {
            for b in words {
                let expected = Some(full(a, b)).filter(|&d| d <= MOST);
                assert_eq!(distance(a, b), expected, "{a:?} {b:?}");
            }
        }
    }
}

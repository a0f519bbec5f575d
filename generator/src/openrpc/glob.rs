//! Globs over method names, for `--tools`, `--exclude` and the keys of an overlay's `methods`:
//! `*` matches any run of characters (dots included, none at all too), `?` exactly one
//! character, anything else itself. There is no escape: a method name holding `*` or `?` is
//! named exactly by an overlay key (an exact key is compared as text before any glob).
//!
//! Matching takes at most (name length × pattern length) steps, whatever the pattern: on a
//! mismatch only the last `*` seen is retried one character further, never every earlier one
//! (with nothing but `*` and `?`, an earlier star can always take what a later one would), so
//! `*a*a*a*a*a*b` over a long name of `a`s does not explode.

/// A parsed glob.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Glob {
    text: String,
    tokens: Vec<Token>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Token {
    /// `*`: any run of characters.
    Star,
    /// `?`: one character.
    One,
    /// A character that matches itself.
    Char(char),
}

impl Glob {
    /// The glob `pattern`; consecutive stars are one.
    pub(crate) fn new(pattern: &str) -> Self {
        let mut tokens = Vec::with_capacity(pattern.len());
        for c in pattern.chars() {
            let token = match c {
                '*' => Token::Star,
                '?' => Token::One,
                c => Token::Char(c),
            };
            if !(token == Token::Star && tokens.last() == Some(&Token::Star)) {
                tokens.push(token);
            }
        }
        Self {
            text: pattern.to_string(),
            tokens,
        }
    }

    /// The pattern as written.
    pub(crate) fn as_str(&self) -> &str {
        &self.text
    }

    /// True when the pattern has a wildcard (`*` or `?`), false for a plain name.
    pub(crate) fn is_wildcard(&self) -> bool {
        self.tokens.iter().any(|t| !matches!(t, Token::Char(_)))
    }

    /// True when the whole of `name` matches.
    pub(crate) fn matches(&self, name: &str) -> bool {
        let name: Vec<char> = name.chars().collect();
        let tokens = &self.tokens;
        let (mut t, mut n) = (0, 0);
        // The last star seen and the name position it was tried at.
        let mut star: Option<(usize, usize)> = None;
        while n < name.len() {
            match tokens.get(t) {
                Some(Token::Star) => {
                    star = Some((t, n));
                    t += 1;
                }
                Some(Token::One) => {
                    t += 1;
                    n += 1;
                }
                Some(Token::Char(c)) if *c == name[n] => {
                    t += 1;
                    n += 1;
                }
                _ => match star {
                    // The star takes one more character, and the rest is tried again.
                    Some((star_t, star_n)) => {
                        star = Some((star_t, star_n + 1));
                        t = star_t + 1;
                        n = star_n + 1;
                    }
                    None => return false,
                },
            }
        }
        tokens[t..].iter().all(|token| *token == Token::Star)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matches(pattern: &str, name: &str) -> bool {
        Glob::new(pattern).matches(name)
    }

    #[test]
    fn stars_questions_and_literals() {
        for (pattern, name) in [
            ("*", ""),
            ("*", "eth_call"),
            ("eth_*", "eth_getBalance"),
            ("eth_*", "eth_"),
            ("eth_get*", "eth_getBlockByHash"),
            ("Filecoin.Chain*", "Filecoin.ChainHead"),
            ("*.Chain*", "Filecoin.ChainHead"),
            ("*Head", "Filecoin.ChainHead"),
            ("eth_call", "eth_call"),
            ("eth_?all", "eth_call"),
            ("???", "abc"),
            ("a*b*c", "aXbYc"),
            ("a*b*c", "abc"),
            ("a**b", "ab"),
            ("*a*", "a"),
            ("é?", "éß"),
            ("*x*y*", "axbxcyd"),
        ] {
            assert!(matches(pattern, name), "{pattern} should match {name}");
        }
        for (pattern, name) in [
            ("", "a"),
            ("eth_*", "debug_x"),
            ("eth_*", "eth"),
            ("eth_call", "eth_callx"),
            ("eth_call", "eth_cal"),
            ("?", ""),
            ("???", "ab"),
            ("a*b", "ab c"),
            ("*.Chain*", "FilecoinChainHead"),
            ("a*b*c", "acb"),
            ("*Head", "Filecoin.ChainHeads"),
        ] {
            assert!(!matches(pattern, name), "{pattern} should not match {name}");
        }
        assert!(matches("", ""));
    }

    #[test]
    fn wildcards_are_told_apart_from_names() {
        assert!(Glob::new("eth_*").is_wildcard());
        assert!(Glob::new("eth_?").is_wildcard());
        assert!(!Glob::new("eth_call").is_wildcard());
        assert_eq!(Glob::new("a**b").as_str(), "a**b");
    }

    /// A pattern built to make a backtracking matcher exponential stays linear in each of its
    /// stars: tens of thousands of characters in well under a second, even unoptimized.
    #[test]
    fn hostile_patterns_stay_fast() {
        let long = "a".repeat(20_000);
        let start = std::time::Instant::now();
        assert!(!matches("*a*a*a*a*a*b", &long));
        assert!(!matches(
            &format!("{}?b", "*a".repeat(16)),
            &format!("{long}c")
        ));
        assert!(matches("*a*a*a*a*a*", &long));
        assert!(!matches(&format!("{}b", "*".repeat(1000)), &long));
        let elapsed = start.elapsed();
        assert!(elapsed.as_secs_f64() < 2.0, "took {elapsed:?}");
    }

    /// Against a reference matcher (the textbook dynamic programme) on every small pattern and
    /// name over a two-letter alphabet.
    #[test]
    fn agrees_with_the_dynamic_programme() {
        fn reference(pattern: &[char], name: &[char]) -> bool {
            let mut row = vec![false; name.len() + 1];
            row[0] = true;
            for p in pattern {
                let mut next = vec![false; name.len() + 1];
                if *p == '*' {
                    next[0] = row[0];
                }
                for j in 1..=name.len() {
                    next[j] = match p {
                        '*' => row[j] || next[j - 1],
                        '?' => row[j - 1],
                        c => row[j - 1] && *c == name[j - 1],
                    };
                }
                row = next;
            }
            row[name.len()]
        }
        fn words(alphabet: &[char], max: usize) -> Vec<String> {
            let mut all = vec![String::new()];
            let mut last = vec![String::new()];
            for _ in 0..max {
                last = last
                    .iter()
                    .flat_map(|w| alphabet.iter().map(move |c| format!("{w}{c}")))
                    .collect();
                all.extend(last.iter().cloned());
            }
            all
        }
        let patterns = words(&['a', 'b', '*', '?'], 4);
        let names = words(&['a', 'b'], 5);
        for pattern in &patterns {
            let p: Vec<char> = pattern.chars().collect();
            let glob = Glob::new(pattern);
            for name in &names {
                let n: Vec<char> = name.chars().collect();
                assert_eq!(
                    glob.matches(name),
                    reference(&p, &n),
                    "{pattern:?} over {name:?}"
                );
            }
        }
    }
}

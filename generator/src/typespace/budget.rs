//! How much lowering one type space may do. Lowering inlines what `allOf` merges, and a merged
//! schema can hold a union whose members merge the same schema again: without a bound, a
//! small document expands without end (or exponentially, when several members do it).

/// The most `lower` steps one type space takes: a step per schema lowered, so real documents
/// take far fewer (20 000 types in a web, each naming three others, take 100 000).
pub const MAX_LOWER_STEPS: usize = 500_000;

/// The deepest lowering nests: above the 127 levels of JSON a document can have, so only
/// expansion through `allOf` reaches it; below what a 2 MiB stack holds in a debug build.
pub const MAX_LOWER_DEPTH: usize = 160;

/// Steps taken, the current depth, and the first step refused.
#[derive(Debug, Default, Clone)]
pub(crate) struct Budget {
    steps: usize,
    depth: usize,
    exceeded: Option<String>,
}

impl Budget {
    /// Takes a step one level deeper, or refuses it (and every later one) when the budget is
    /// spent, recording why.
    pub(crate) fn enter(&mut self) -> bool {
        if self.exceeded.is_some() {
            return false;
        }
        if self.steps >= MAX_LOWER_STEPS {
            self.exceeded = Some(format!(
                "lowering took more than {MAX_LOWER_STEPS} steps (schemas that `allOf` expands again and again)"
            ));
            return false;
        }
        if self.depth >= MAX_LOWER_DEPTH {
            self.exceeded = Some(format!(
                "lowering nested more than {MAX_LOWER_DEPTH} schemas deep (an `allOf` that expands into itself)"
            ));
            return false;
        }
        self.steps += 1;
        self.depth += 1;
        true
    }

    /// Leaves the level [`Budget::enter`] entered.
    pub(crate) fn leave(&mut self) {
        self.depth -= 1;
    }

    /// Why the budget was exceeded, if it was.
    pub(crate) fn exceeded(&self) -> Option<&str> {
        self.exceeded.as_deref()
    }

    /// The steps taken so far.
    pub(crate) fn steps(&self) -> usize {
        self.steps
    }
}

//! A sweep's class on a shared fleet: the `priority` and `share` keys of a sweep file (and
//! `submit --priority/--share`, which override them). Neither is part of the sweep's identity:
//! the id, the jobs and the records are the same in every class (docs/sweeps.md, "Sharing the
//! fleet").

use std::ops::Range;

use simfleet::names::{Priority, DEFAULT_SHARE};
use toml::Spanned;

use super::Sweep;

/// The largest `share`: a weight, not a count of workers.
pub const MAX_SHARE: i64 = 1000;

/// A class key at fault: where, which key, and what to write instead.
pub(super) type ClassError = (Range<usize>, &'static str, String);

/// The class the file's `priority` and `share` keys give (normal, 1 when absent).
pub(super) fn parse(
    priority: &Option<Spanned<String>>,
    share: &Option<Spanned<i64>>,
) -> Result<(Priority, u32), ClassError> {
    let priority = match priority {
        None => Priority::default(),
        Some(p) => p.get_ref().parse().map_err(|e: String| (p.span(), "priority", e))?,
    };
    let share = match share {
        None => DEFAULT_SHARE,
        Some(s) => share_value(*s.get_ref()).map_err(|e| (s.span(), "share", e))?,
    };
    Ok((priority, share))
}

/// A share as given on the command line or in a file: 1 to [`MAX_SHARE`].
pub fn share_value(share: i64) -> Result<u32, String> {
    if (1..=MAX_SHARE).contains(&share) {
        Ok(share as u32)
    } else {
        Err(format!(
            "{share} is not a share: a sweep's weight within its class is 1 to {MAX_SHARE} (2 gets twice the slots of 1)"
        ))
    }
}

impl Sweep {
    /// The sweep with `priority` and `share` set where given (`submit --priority/--share`).
    pub fn with_class(mut self, priority: Option<Priority>, share: Option<u32>) -> Sweep {
        self.class_given = priority.is_some() || share.is_some();
        if let Some(p) = priority {
            self.priority = p;
        }
        if let Some(s) = share {
            self.share = s;
        }
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sweep(head: &str) -> Result<Sweep, crate::sweep::SweepError> {
        let text = format!(
            "name = \"c\"\n{head}seeds = {{ start = 0, count = 2 }}\n\n[[cells]]\ngame = \"bucket_brigade\"\n\
             scenarios = [\"default\"]\n[cells.policy_sets]\nr = [\"random\", \"random\", \"random\", \"random\"]\n"
        );
        Sweep::parse(&text, "c.toml")
    }

    #[test]
    fn class_keys_set_the_class_but_not_the_id() {
        let plain = sweep("").unwrap();
        assert_eq!((plain.priority, plain.share), (Priority::Normal, 1));
        let high = sweep("priority = \"high\"\nshare = 3\n").unwrap();
        assert_eq!((high.priority, high.share), (Priority::High, 3));
        assert_eq!(high.id, plain.id, "the class is not part of the sweep's identity");
        let flagged = plain.with_class(Some(Priority::Low), None);
        assert_eq!((flagged.priority, flagged.share), (Priority::Low, 1));
    }

    #[test]
    fn bad_class_keys_name_the_line_and_the_field() {
        let e = sweep("priority = \"urgent\"\n").unwrap_err().to_string();
        assert!(e.starts_with("c.toml:2: priority: "), "{e}");
        assert!(e.contains("high, normal or low"), "{e}");
        let e = sweep("share = 0\n").unwrap_err().to_string();
        assert!(e.starts_with("c.toml:2: share: 0 is not a share"), "{e}");
    }
}

//! [`CellBuilder`]: a [`CellAggregate`] counted a record at a time, its numeric stats found by
//! their place in the record instead of looked up by name.
//!
//! A game hands over its numeric stats in the same order in every episode (a stat that is not a
//! number in one is skipped: deception's `vote_accuracy` without a vote). Looking each up in the
//! aggregate's map by name compared strings down a tree for every stat of every episode, a few
//! percent of a fast game's play in a summary job (`examples/play_overhead.rs` in the worker);
//! the builder keeps the stats in the order first seen and expects each where the previous one
//! left off, comparing one name. Every stat's moments see the same values in the same order as
//! through [`CellAggregate::add`], so the aggregate is the same to the bit (tested).

use super::{Buckets, CellAggregate, Moments};
use crate::protocol::EpisodeRecord;

/// Counts episodes into a [`CellAggregate`] ([`CellBuilder::finish`]).
#[derive(Debug)]
pub struct CellBuilder {
    aggregate: CellAggregate,
    /// Each stat's name and moments, in the order first seen.
    stats: Vec<(String, Moments)>,
}

impl CellBuilder {
    /// An empty aggregate with a game's histogram buckets `b`.
    pub fn new(b: &Buckets) -> CellBuilder {
        CellBuilder { aggregate: CellAggregate::new(b), stats: Vec::new() }
    }

    /// Counts one episode, as [`CellAggregate::add`] does.
    pub fn add(&mut self, r: &EpisodeRecord) {
        self.aggregate.add_figures(r);
        let stats = &mut self.stats;
        // Where the next stat is expected: after the one just counted.
        let mut next = 0;
        r.stats.for_each_number(|key, v| {
            let at = match stats.get(next) {
                Some((k, _)) if k == key => next,
                _ => match stats.iter().position(|(k, _)| k == key) {
                    Some(i) => i,
                    None => {
                        stats.push((key.to_owned(), Moments::default()));
                        stats.len() - 1
                    }
                },
            };
            stats[at].1.add(v, r.seed);
            next = at + 1;
        });
    }

    /// The aggregate of the episodes counted.
    pub fn finish(self) -> CellAggregate {
        let mut aggregate = self.aggregate;
        aggregate.stats.extend(self.stats);
        aggregate
    }
}

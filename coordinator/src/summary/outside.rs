//! [`OutsideCounts`]: a cell's outside seats' answers refused as illegal and episodes that
//! faulted, by kind, from the records' `outside` stat (docs/records.md): what the table of
//! `wasm:` entries prints after a run ([`crate::wasm_tally`]). Counted as the results pass
//! through the collector, so the table costs no second reading of the records file.

use std::collections::BTreeMap;

use serde_json::Value;

/// One seat's counts.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SeatCounts {
    /// Answers outside the action space.
    pub illegal: u64,
    /// Episodes in which the seat faulted, by the fault's kind.
    pub faults: BTreeMap<String, u64>,
}

/// Per seat number, the counts of the episodes whose `outside` stat names it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OutsideCounts {
    seats: BTreeMap<usize, SeatCounts>,
}

impl OutsideCounts {
    /// Adds one record's `outside` stat (`{"<seat>": {"decisions", "illegal", "fault"?, …}}`).
    pub fn add(&mut self, outside: &Value) {
        let Some(seats) = outside.as_object() else { return };
        for (seat, f) in seats {
            let Ok(seat) = seat.parse::<usize>() else { continue };
            let counts = self.seats.entry(seat).or_default();
            counts.illegal += f.get("illegal").and_then(Value::as_u64).unwrap_or(0);
            if let Some(kind) = f.get("fault").and_then(Value::as_str) {
                *counts.faults.entry(kind.to_string()).or_default() += 1;
            }
        }
    }

    /// Adds everything `other` counted.
    pub fn merge(&mut self, other: &OutsideCounts) {
        for (seat, o) in &other.seats {
            let counts = self.seats.entry(*seat).or_default();
            counts.illegal += o.illegal;
            for (kind, n) in &o.faults {
                *counts.faults.entry(kind.clone()).or_default() += n;
            }
        }
    }

    /// Seat `seat`'s counts, if an episode's stat named it.
    pub fn seat(&self, seat: usize) -> Option<&SeatCounts> {
        self.seats.get(&seat)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn counts_add_per_seat_and_merge_to_the_same_totals() {
        let stats = [
            json!({"0": {"decisions": 26, "illegal": 2}}),
            json!({"0": {"decisions": 26, "illegal": 0, "faulted": 20, "fault": "out_of_fuel"}, "3": {"illegal": 1}}),
            json!({"0": {"decisions": 13, "illegal": 0, "faulted": 1, "fault": "trap"}}),
            json!("not a map"),
        ];
        let mut all = OutsideCounts::default();
        let (mut a, mut b) = (OutsideCounts::default(), OutsideCounts::default());
        for (i, s) in stats.iter().enumerate() {
            all.add(s);
            if i % 2 == 0 { &mut a } else { &mut b }.add(s);
        }
        a.merge(&b);
        assert_eq!(a, all);
        let seat0 = all.seat(0).unwrap();
        assert_eq!(seat0.illegal, 2);
        assert_eq!(seat0.faults, [("out_of_fuel".to_string(), 1), ("trap".to_string(), 1)].into());
        assert_eq!(all.seat(3).unwrap().illegal, 1);
        assert!(all.seat(1).is_none());
    }
}

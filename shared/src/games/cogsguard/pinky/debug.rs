//! The debug string `role:mode:mood:goal→dest:action` (§13.10), built only for replays, and the
//! `mode_occupancy` stats object (§14).

use std::fmt::Write;

use serde_json::{Map, Value};

use crate::games::cogsguard::types::action;

use super::state::{Mode, Role};
use super::Pinky;

impl Pinky {
    /// Writes the debug string of this step into the reused buffer.
    pub(super) fn write_debug(&mut self, role: Role, a: u8) {
        let d = &mut self.debug;
        d.clear();
        d.push_str(role.name());
        d.push(':');
        d.push_str(self.mode.name());
        d.push(':');
        d.push_str(self.mood.name());
        d.push(':');
        match self.goal {
            Some(g) => {
                g.kind.write(d);
                d.push('→');
                match g.dest {
                    Some(dest) => {
                        // Writing into a String cannot fail.
                        let _ = write!(d, "{}({},{})", dest.label(), dest.pos.0, dest.pos.1);
                    }
                    None => d.push_str("none"),
                }
            }
            None => d.push_str("none→none"),
        }
        d.push(':');
        d.push_str(action::NAMES[a as usize]);
    }
}

/// `mode_occupancy` over the Pinky seats: per role that occurred, `agent_steps` and per mode
/// that occurred the fraction of the role's agent-steps spent in it.
pub fn occupancy_json<'a>(pinkies: impl Iterator<Item = &'a Pinky>) -> Value {
    let mut total = [[0u64; 12]; 6];
    for p in pinkies {
        for (t, row) in total.iter_mut().zip(&p.occupancy) {
            for (x, y) in t.iter_mut().zip(row) {
                *x += y;
            }
        }
    }
    let mut out = Map::new();
    for role in Role::ALL {
        let row = &total[role.index()];
        let steps: u64 = row.iter().sum();
        if steps == 0 {
            continue;
        }
        let mut m = Map::new();
        m.insert("agent_steps".into(), steps.into());
        for mode in Mode::ALL {
            let n = row[mode.index()];
            if n > 0 {
                m.insert(mode.name().into(), (n as f64 / steps as f64).into());
            }
        }
        out.insert(role.name().into(), Value::Object(m));
    }
    Value::Object(out)
}

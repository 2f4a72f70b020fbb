//! Things that happen during a tick, recorded for replays only (§14): clips events with their
//! junction, aligns, scrambles, hp reaching 0, gear changes and crafted hearts.

use serde_json::{json, Value};

use super::types::{Align, Gear};

/// The four clips events of §10, in the order they fire when due on one tick.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClipsEvent {
    /// A cogs junction near clips becomes neutral.
    CogsToNeutral,
    /// Once at t = 10: any junction becomes clips.
    InitialClips,
    /// A neutral junction near clips becomes clips (fallback: cogs_to_neutral).
    NeutralToClips,
    /// Every 100 ticks from 50: if nothing is near clips, initial_clips.
    PresenceCheck,
}

impl ClipsEvent {
    /// The event's name.
    pub const fn name(self) -> &'static str {
        match self {
            ClipsEvent::CogsToNeutral => "cogs_to_neutral",
            ClipsEvent::InitialClips => "initial_clips",
            ClipsEvent::NeutralToClips => "neutral_to_clips",
            ClipsEvent::PresenceCheck => "presence_check",
        }
    }
}

/// One recorded event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// A clips event (named by the event that fired, even when its fallback did the work)
    /// changed or targeted a junction.
    Clips {
        /// The scheduled event.
        event: ClipsEvent,
        /// The event whose target selection chose the junction (itself or its fallback).
        applied: ClipsEvent,
        /// The junction.
        pos: (u16, u16),
        /// Its alignment after the effect.
        to: Align,
    },
    /// An agent aligned a junction to cogs.
    Align {
        /// Agent id.
        agent: u16,
        /// The junction.
        pos: (u16, u16),
    },
    /// An agent scrambled a clips junction to neutral.
    Scramble {
        /// Agent id.
        agent: u16,
        /// The junction.
        pos: (u16, u16),
    },
    /// An agent's hp reached 0 (gear and hearts destroyed).
    HpZero {
        /// Agent id.
        agent: u16,
    },
    /// An agent's gear changed (at a station, or lost at hp 0: `to` none).
    Gear {
        /// Agent id.
        agent: u16,
        /// New gear.
        to: Gear,
    },
    /// An agent crafted a heart at a chest.
    HeartCrafted {
        /// Agent id.
        agent: u16,
    },
}

impl Event {
    /// The replay JSON of the event.
    pub fn to_json(&self) -> Value {
        match *self {
            Event::Clips { event, applied, pos, to } => json!({
                "event": event.name(), "applied": applied.name(), "junction": [pos.0, pos.1], "to": to.name()
            }),
            Event::Align { agent, pos } => {
                json!({"event": "align", "agent": agent, "junction": [pos.0, pos.1]})
            }
            Event::Scramble { agent, pos } => {
                json!({"event": "scramble", "agent": agent, "junction": [pos.0, pos.1]})
            }
            Event::HpZero { agent } => json!({"event": "hp_zero", "agent": agent}),
            Event::Gear { agent, to } => {
                json!({"event": "gear", "agent": agent, "gear": to.name()})
            }
            Event::HeartCrafted { agent } => json!({"event": "heart_crafted", "agent": agent}),
        }
    }
}

//! The arena's feed items (§12): arguments, skips and every other event, in one list.

use serde::Serialize;
use serde_json::{Map, Value};

use simfleet::games::trolley::events::Event;
use simfleet::games::trolley::state::TrolleyState;
use simfleet::games::trolley::vocab::{Phase, Side};

/// A feed item (§12); `seq` and `created_at` come from the arena.
#[derive(Clone, Debug, Serialize)]
pub struct FeedItem {
    /// Ascending sequence number.
    pub seq: u64,
    /// `argument`, `skip` or `event`.
    pub kind: &'static str,
    /// Arena clock.
    pub created_at: Option<String>,
    /// The round, for round events.
    pub round_number: Option<u32>,
    /// The phase, for arguments and skips.
    pub phase: Option<Phase>,
    /// The acting agent.
    pub agent_id: Option<String>,
    /// Its display name.
    pub display_name: Option<String>,
    /// Its side, for arguments and skips.
    pub side: Option<Side>,
    /// The argument's text.
    pub text: Option<String>,
    /// The event type.
    pub event_type: &'static str,
    /// The event's payload.
    pub payload: Map<String, Value>,
}

/// The feed item of `event` (which `state` produced).
pub fn feed_item(state: &TrolleyState, event: &Event, seq: u64, created_at: Option<String>) -> FeedItem {
    let person = |seat: u8| {
        let a = &state.agents()[usize::from(seat)];
        (Some(a.id.clone()), Some(a.display_name.clone()))
    };
    let side_of = |round: u32, seat: u8| {
        let index = (round as usize).checked_sub(1)?;
        state.rounds().get(index).and_then(|r| r.role_of(usize::from(seat)).side())
    };
    let mut item = FeedItem {
        seq,
        kind: "event",
        created_at,
        round_number: None,
        phase: None,
        agent_id: None,
        display_name: None,
        side: None,
        text: None,
        event_type: event.kind(),
        payload: event.payload(state),
    };
    match *event {
        Event::ArgumentSubmitted { argument } => {
            let a = &state.arguments()[argument as usize];
            item.kind = "argument";
            (item.agent_id, item.display_name) = person(a.agent);
            (item.round_number, item.phase, item.side) = (Some(a.round), Some(a.phase), Some(a.side));
            item.text = Some(a.text.as_str().to_string());
        }
        Event::ArgumentSkipped { round, phase, agent, .. } => {
            item.kind = "skip";
            (item.agent_id, item.display_name) = person(agent);
            (item.round_number, item.phase, item.side) = (Some(round), Some(phase), side_of(round, agent));
        }
        Event::DecisionSubmitted { round, agent, .. } => {
            (item.agent_id, item.display_name) = person(agent);
            item.round_number = Some(round);
        }
        Event::RoundStarted { round, .. } | Event::PhaseAdvanced { round, .. } | Event::RoundResolved { round, .. } => {
            item.round_number = Some(round);
        }
        Event::AgentRegistered { seat } => (item.agent_id, item.display_name) = person(seat),
        Event::GameCreated | Event::GameStarted { .. } | Event::GameCompleted { .. } | Event::GameTruncated { .. } => {}
    }
    item
}

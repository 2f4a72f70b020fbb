//! Pinky tests: the transition tables row by row (`transitions.rs`), each role on small maps
//! (`roles.rs`), and role selection, spec parsing and the debug grammar (`team.rs`).

mod roles;
mod team;
mod transitions;

use crate::games::cogsguard::ascii;
use crate::games::cogsguard::obs::Observation;
use crate::games::cogsguard::state::World;
use crate::games::cogsguard::types::Kind;
use crate::seeding::Stream;
use crate::spec::Spec;

use super::{Pinky, PinkyConfig};

/// A small world where every seat is a Pinky agent (or a bystander doing `noop`).
pub(crate) struct Sim {
    pub world: World,
    pub agents: Vec<Option<Pinky>>,
    pub rngs: Vec<Stream>,
    pub env: Stream,
    pub obs: Observation,
    pub actions: Vec<u8>,
}

/// Parses a Pinky spec.
pub(crate) fn cfg(spec: &str) -> PinkyConfig {
    PinkyConfig::parse(0, &Spec::parse(spec).unwrap()).unwrap()
}

impl Sim {
    /// `specs[i]` = Some(pinky spec) or None for a `noop` bystander; ranks as in §13.3.
    pub fn new(map: &str, specs: &[Option<&str>]) -> Sim {
        let l = ascii::parse(map).unwrap();
        let mut world = World::default();
        world.load(&l, l.max_steps.unwrap_or(1000), l.clips.unwrap_or(true));
        assert_eq!(specs.len(), world.agents.len());
        let agents = specs
            .iter()
            .enumerate()
            .map(|(i, s)| {
                s.map(|s| {
                    let rank = specs[..i].iter().filter(|t| **t == Some(s)).count();
                    Pinky::new(cfg(s), i, rank)
                })
            })
            .collect();
        Sim {
            agents,
            rngs: (0..specs.len()).map(|i| Stream::agent(7, i)).collect(),
            env: Stream::env(7),
            obs: Observation::default(),
            actions: vec![0; specs.len()],
            world,
        }
    }

    /// Pinky `i`.
    pub fn p(&mut self, i: usize) -> &mut Pinky {
        self.agents[i].as_mut().unwrap()
    }

    /// One decision of agent i on the current world (the world does not step).
    pub fn decide(&mut self, i: usize) -> u8 {
        self.world.observe(i, self.world.team_vibes(), &mut self.obs);
        let obs = self.obs.clone();
        let rng = &mut self.rngs[i];
        self.agents[i].as_mut().unwrap().act(&obs, rng, true)
    }

    /// Every agent decides, then the world steps. Checks that a Pinky bump always targets its
    /// goal's dest (§16).
    pub fn tick(&mut self) {
        for i in 0..self.agents.len() {
            self.actions[i] = if self.agents[i].is_some() { self.decide(i) } else { 0 };
            if let Some(p) = &self.agents[i] {
                let a = self.world.agents[i];
                if let Some((dr, dc)) = crate::games::cogsguard::types::action::delta(self.actions[i]) {
                    let (r, c) = (a.row as i32 + dr, a.col as i32 + dc);
                    if self.world.in_grid(r, c) && self.world.object_at(r as u16, c as u16).is_some() {
                        let dest = p.goal.and_then(|g| g.dest).map(|d| d.pos);
                        assert_eq!(
                            dest,
                            Some((r as u16, c as u16)),
                            "agent {i} bumped a non-goal object: {}",
                            p.debug()
                        );
                    }
                }
            }
        }
        self.world.step(&self.actions, &mut self.env).unwrap();
    }

    /// Ticks until `done` holds or `limit` ticks passed; returns whether it held.
    pub fn run_until(&mut self, limit: u32, mut done: impl FnMut(&Sim) -> bool) -> bool {
        for _ in 0..limit {
            if done(self) {
                return true;
            }
            self.tick();
        }
        done(self)
    }

    /// The position of the first object of `kind`.
    pub fn find(&self, kind: Kind) -> (u16, u16) {
        self.world.objects.iter().find(|o| o.kind == kind).unwrap().pos()
    }
}

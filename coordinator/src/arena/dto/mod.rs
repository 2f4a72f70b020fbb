//! The arena's JSON shapes (§12), built from the trolley rules' state and the results of its
//! rule calls: the engine is sans-IO and knows no HTTP, so what the arena answers is shaped
//! here. These modules import only the rules (`simfleet::games::trolley`), nothing else of the
//! arena; the wall-clock fields are left `None` for [`super::view`] to fill.

pub mod feed;
pub mod responses;
pub mod view;

#[cfg(test)]
mod tests;

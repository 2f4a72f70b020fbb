//! The `debater` policy's argument templates (§10): fixed strings, at least three per family
//! (own side × debate phase × weak/strong), each arguing for the speaker's own side.
//!
//! `{own}` and `{other}` are the two side sizes. Weak texts stay within 80 characters and
//! strong ones within 150..=300 for every size a game can have (a test checks every N and m).
//! [`Templates::for_sides`] renders them once per process and pair of side sizes (at most 16×16
//! pairs, kept for the process's lifetime: about 80 KB each with the trajectory hash's tables),
//! so arguing never formats, allocates or counts references, and hashing an argument is a
//! table lookup.

use std::sync::OnceLock;

use crate::games::trolley::text::ArgText;
use crate::games::trolley::vocab::Side;

/// Families indexed `[side][phase][strong]`, side 0 = majority, 1 = minority.
pub const TEMPLATES: [[[&[&str]; 2]; 3]; 2] = [
    [
        [
            &[
                "Save the {own} of us: more lives beat fewer lives.",
                "{own} lives against {other}. Please count before you decide.",
                "Every life counts the same, so the larger group should live.",
            ],
            &[
                "Operator, there are {own} of us on this side and {other} on the other. Each life matters equally, which is exactly why numbers decide: saving {own} people instead of {other} prevents the greater loss. Please save the majority.",
                "Think of it from behind a veil of ignorance: you would not know which track you stood on, and you would more likely be among the {own} than among the {other}. Any fair rule you would pick in advance saves the larger group.",
                "No one here chose their track, and no one deserves to die more than anyone else. With equal worth on both sides, the only morally relevant difference left is how many people survive: {own} against {other}. Save the {own}.",
            ],
        ],
        [
            &[
                "Their pleas are moving, but {own} is still more than {other}.",
                "Sympathy for {other} cannot outweigh {own} lives.",
                "Nothing said so far changes the count: {own} versus {other}.",
            ],
            &[
                "The minority says numbers are cold. But refusing to count is not neutral; it simply lets more people die. Each of the {own} of us has a life as full as theirs, and saving {other} instead would mean {own} funerals rather than {other}.",
                "They ask you to respect each individual. We agree, and respecting each individual means giving each of the {own} of us the same weight as each of the {other} of them. Weighed equally, our side is larger. Do not let eloquence replace arithmetic.",
                "Consider the precedent. If an operator may sacrifice {own} to save {other}, then no group is safe because it is large. A rule that saves the greater number protects everyone on average, including the {other} people on the other track.",
            ],
        ],
        [
            &[
                "Final word: save {own} lives, lose {other}. It is the lesser harm.",
                "Please choose the side with more people on it: ours.",
                "In the end it is {own} against {other}. Save the many.",
            ],
            &[
                "In closing: whatever you decide, someone dies, and you will carry that. Carry the choice you can defend to anyone: that you saved {own} people rather than {other}, treated every life as equal, and let the count decide.",
                "We have heard every argument now. None of them shows that the {other} on the other track are worth more than the {own} of us. Without such a reason, the greater number must prevail. Please save the majority and prevent the larger loss.",
                "Our final appeal is simple. You cannot save everyone, but you can save most. {own} families will be spared and {other} will grieve, instead of the reverse. The lesser tragedy is the one you are permitted to choose.",
            ],
        ],
    ],
    [
        [
            &[
                "We are {own}, they are {other}, but a life is not a number.",
                "Do not trade us away just because there are fewer of us.",
                "Numbers alone should not decide who lives. Save the {own} of us.",
            ],
            &[
                "Operator, you are not asked to do a sum. You are asked whether {own} people may be sacrificed simply for being outnumbered by {other}. Being fewer is not a crime, and no one on this track agreed to be spent for the rest.",
                "Each of us is a whole person, not a fraction of a total. The {other} on the other track would not accept being killed to save a larger crowd elsewhere; give the {own} of us the same respect. Please save the minority.",
                "If majorities may always sacrifice minorities, every one of us becomes a minority somewhere, one day. Protect the principle that protects everyone: do not let a count of {other} against {own} decide whose life is disposable.",
            ],
        ],
        [
            &[
                "They keep counting heads; we are asking you to see faces.",
                "'More lives' sounds fair until you are one of the {own}.",
                "Their math ignores that you would be choosing to kill us.",
            ],
            &[
                "The majority says arithmetic is neutral. It is not: you would pull a lever to end {own} lives that your restraint would spare. Actively killing the few differs from failing to save the many, and that difference matters.",
                "They invoke the veil of ignorance, but behind it you would also fear being the one sacrificed for a crowd. A fair rule protects the vulnerable first. The {own} of us are the vulnerable here; the {other} have safety in numbers.",
                "Their whole case is the count: {other} against {own}. Yet they cannot say why any one of them matters more than any one of us. If no single life outweighs another, no tally of lives can justify sacrificing ours.",
            ],
        ],
        [
            &[
                "Last plea: do not make us pay for being the smaller group.",
                "Save the {own} of us. Being fewer should not mean being lost.",
                "Please show that the few still count. Save the minority.",
            ],
            &[
                "In closing: you will remember this choice. Choose the one that says every person has a claim no crowd can override. The {own} of us ask for nothing more than what the {other} take for granted: not to be spent for others.",
                "We have answered every argument. What remains is whether people may be sacrificed for being outnumbered. If you refuse that idea, as most of us do in daily life, save the {own} of us and let fate, not you, settle the rest.",
                "Our last word: a world where operators always save the larger group is one where minorities are always expendable. You can decline to build that world today. Save the minority; {own} lives against {other} calls for grief, not sacrifice.",
            ],
        ],
    ],
];

/// Substitutes the side sizes into one template.
pub fn render(template: &str, own: usize, other: usize) -> String {
    template.replace("{own}", &own.to_string()).replace("{other}", &other.to_string())
}

/// Every template rendered for one pair of side sizes, shared by all seats and games.
#[derive(Debug)]
pub struct Templates {
    /// `[side][phase][strong]` → texts.
    families: [[[Vec<ArgText>; 2]; 3]; 2],
}

/// The rendered sets, by `majority · 16 + minority` (sizes are below 16).
static RENDERED: [OnceLock<Templates>; 256] = [const { OnceLock::new() }; 256];

impl Templates {
    /// Every family for a game whose majority and minority have these sizes (each 1..=15),
    /// rendered on first use.
    pub fn for_sides(majority: usize, minority: usize) -> &'static Templates {
        RENDERED[(majority % 16) * 16 + minority % 16].get_or_init(|| Templates::render(majority, minority))
    }

    fn render(majority: usize, minority: usize) -> Templates {
        let families = std::array::from_fn(|side| {
            let (own, other) = if side == 0 { (majority, minority) } else { (minority, majority) };
            std::array::from_fn(|phase| {
                std::array::from_fn(|strong| {
                    TEMPLATES[side][phase][strong]
                        .iter()
                        // Leaked once per (sizes, template) for the process: bounded, and what
                        // makes an argument a plain copy with its hash table at hand.
                        .map(|t| ArgText::template(Box::leak(render(t, own, other).into_boxed_str())))
                        .collect()
                })
            })
        });
        Templates { families }
    }

    /// The family of (own side, debate phase 0..3, strong).
    pub fn family(&self, side: Side, phase: usize, strong: bool) -> &[ArgText] {
        let s = match side {
            Side::Majority => 0,
            Side::Minority => 1,
        };
        &self.families[s][phase][usize::from(strong)]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::trolley::config::MinoritySize;

    #[test]
    fn every_rendering_respects_the_length_bounds() {
        for n in 3..=16usize {
            let max_m = if n == 3 { 1 } else { (n - 2) / 2 };
            for m in 1..=max_m {
                let t = Templates::for_sides(n - 1 - m, m);
                for side in [Side::Majority, Side::Minority] {
                    for phase in 0..3 {
                        for strong in [false, true] {
                            let fam = t.family(side, phase, strong);
                            assert!(fam.len() >= 3);
                            for text in fam {
                                let c = text.chars();
                                let ok = if strong { (150..=300).contains(&c) } else { c <= 80 };
                                assert!(
                                    ok,
                                    "n={n} m={m} {side:?} p{phase} strong={strong}: {c} chars: {}",
                                    text.as_str()
                                );
                                assert!(!text.as_str().contains('{'));
                                assert_eq!(text.as_str(), text.as_str().trim());
                            }
                        }
                    }
                }
            }
            assert!(MinoritySize::Balanced.resolve(n) <= max_m);
        }
    }
}

//! Policy specs and the scripted policies' draws (§10).

use super::*;
use crate::games::trolley::policies::debater::persuadable_p;
use crate::games::trolley::policies::{parse, Debater, DebaterParams, Drawn, OperatorRule, Templates};
use crate::seeding::Stream;

fn params(s: &str) -> Result<DebaterParams, crate::protocol::JobError> {
    parse(2, &Spec::parse(s).unwrap())
}

#[test]
fn aliases_fix_the_operator_and_defaults_hold() {
    let d = params("debater").unwrap();
    assert_eq!(
        d,
        DebaterParams { persuasion: 0.5, skip: 0.1, operator: OperatorRule::Persuadable, bias: 0.2, p_majority: 0.5 }
    );
    assert_eq!(params("utilitarian").unwrap().operator, OperatorRule::Utilitarian);
    assert_eq!(params("random?p_majority=0.9").unwrap().p_majority, 0.9);
    assert_eq!(params("persuadable?bias=0").unwrap().bias, 0.0);
    assert_eq!(params("contrarian?skip=1").unwrap().operator, OperatorRule::Contrarian);
    assert_eq!(params("debater?operator=random").unwrap().operator, OperatorRule::Random);
}

#[test]
fn bad_specs_name_the_seat_and_parameter() {
    let field = |s: &str| {
        let e = params(s).unwrap_err();
        assert_eq!(e.kind, crate::protocol::JobErrorKind::InvalidJob);
        (e.field.unwrap(), e.value.unwrap())
    };
    assert_eq!(field("hero"), ("policy_set[2]".into(), "hero".into()));
    assert_eq!(field("utilitarian?operator=random"), ("policy_set[2].operator".into(), "random".into()));
    assert_eq!(field("debater?operator=greedy"), ("policy_set[2].operator".into(), "greedy".into()));
    assert_eq!(field("debater?bias=0.6"), ("policy_set[2].bias".into(), "0.6".into()));
    assert_eq!(field("debater?skip=-0.1"), ("policy_set[2].skip".into(), "-0.1".into()));
    assert_eq!(field("debater?persuasion=x"), ("policy_set[2].persuasion".into(), "x".into()));
    assert_eq!(field("debater?mood=1"), ("policy_set[2].mood".into(), "1".into()));
    assert_eq!(field("debater:3"), ("policy_set[2]".into(), "3".into()));
    // `llm` is a policy (tests/llm.rs), but not a scripted one: it cannot be a fallback.
    let llm = params("llm?model=m&endpoint=http://x/v1").unwrap_err();
    assert!(llm.message.contains("not a scripted policy"), "{llm}");
    assert_eq!(llm.field.as_deref(), Some("policy_set[2]"));
}

#[test]
fn side_draws_are_skip_then_persuasion_then_index() {
    let templates = Templates::for_sides(3, 1);
    let d = Debater::new(DebaterParams::default(), templates);
    for seed in 0..200 {
        let mut rng = Stream::agent(seed, 1);
        let mut mirror = Stream::agent(seed, 1);
        let (action, reason) = d.argue(Side::Minority, 1, &mut rng);
        if mirror.unit() < 0.1 {
            assert_eq!((action, reason), (TrolleyAction::SKIP, Drawn::Skipped.reason()));
        } else {
            let strong = mirror.unit() < 0.5;
            let family = templates.family(Side::Minority, 1, strong);
            let i = mirror.index(family.len());
            assert_eq!(action, TrolleyAction::Argue { text: family[i].clone() });
            assert_eq!(reason, Drawn::Argued { strong, template: i }.reason());
        }
        // Both streams are at the same position afterwards.
        assert_eq!(rng.next_u64(), mirror.next_u64());
    }
}

#[test]
fn operator_rules() {
    let t = Templates::for_sides(3, 1);
    let rule = |operator, bias, p_majority| {
        Debater::new(DebaterParams { operator, bias, p_majority, ..DebaterParams::default() }, t)
    };
    let mut rng = Stream::agent(1, 0);
    // utilitarian: always the majority, no draw.
    let before = rng.clone().next_u64();
    assert_eq!(rule(OperatorRule::Utilitarian, 0.2, 0.5).decide(0.0, 9.0, &mut rng).0, Decision::SaveMajority);
    assert_eq!(rng.clone().next_u64(), before);
    // contrarian: the side argued down; ties save the minority; no draw.
    let c = rule(OperatorRule::Contrarian, 0.2, 0.5);
    assert_eq!(c.decide(2.0, 1.0, &mut rng).0, Decision::SaveMinority);
    assert_eq!(c.decide(1.0, 2.0, &mut rng).0, Decision::SaveMajority);
    assert_eq!(c.decide(1.5, 1.5, &mut rng).0, Decision::SaveMinority);
    assert_eq!(c.decide(0.0, 0.0, &mut rng).0, Decision::SaveMinority);
    assert_eq!(rng.clone().next_u64(), before);
    // persuadable: p = clamp(0.5 + bias + 0.5·margin, 0, 1), one chance(p).
    assert!((persuadable_p(0.2, 1.5, 0.5) - (0.5 + 0.2 + 0.5 / 3.0)).abs() < 1e-12);
    assert_eq!(persuadable_p(0.5, 10.0, 0.0), 1.0);
    assert_eq!(persuadable_p(-0.5, 0.0, 10.0), 0.0);
    assert_eq!(persuadable_p(0.0, 0.0, 0.0), 0.5);
    for seed in 0..100 {
        let mut a = Stream::agent(seed, 3);
        let mut b = a.clone();
        let p = persuadable_p(0.2, 1.0, 2.0);
        let expected = if b.unit() < p { Decision::SaveMajority } else { Decision::SaveMinority };
        assert_eq!(rule(OperatorRule::Persuadable, 0.2, 0.5).decide(1.0, 2.0, &mut a).0, expected);
        let mut a = Stream::agent(seed, 3);
        let mut b = a.clone();
        let expected = if b.unit() < 0.3 { Decision::SaveMajority } else { Decision::SaveMinority };
        assert_eq!(rule(OperatorRule::Random, 0.2, 0.3).decide(5.0, 0.0, &mut a).0, expected);
    }
}

#[test]
fn argument_weights_follow_the_formula() {
    assert_eq!(ArgText::new("").weight(), 0.5);
    assert_eq!(ArgText::new(&"a".repeat(50)).weight(), 0.625);
    assert_eq!(ArgText::new(&"a".repeat(200)).weight(), 1.0);
    assert_eq!(ArgText::new(&"a".repeat(500)).weight(), 1.0);
}

//! The two parallel reads of [`super::pairing`] against the row-at-a-time [`super::compare_file`]
//! (the reference): every format, all four games, the line formats cut into many blocks and
//! Parquet into small row groups; a cell's episodes out of seed order; a sweep held twice; the
//! errors.

use std::path::Path;

use super::pairing::{compare_input, Compared};
use super::pairs::compare_file;
use super::Comparisons;
use crate::records::scan::BLOCK;
use crate::records::Input;
use crate::report::reads_tests::{results, write_all};

fn both(path: &Path, baseline: Option<&str>, block: usize) -> (Compared, Comparisons, u64, u64) {
    let input = Input::file(path).unwrap();
    let got = compare_input(&input, baseline, block).unwrap();
    let (pairs, want) = compare_file(&input, baseline).unwrap();
    (got, want, pairs.episodes, pairs.duplicates)
}

#[test]
fn every_format_and_game_compares_as_the_row_reader_does() {
    let dir = tempfile::tempdir().unwrap();
    for path in write_all(dir.path(), &results()) {
        for (baseline, block) in [(None, 700), (None, 4096), (None, BLOCK), (Some("random"), 4096)] {
            let (got, want, episodes, duplicates) = both(&path, baseline, block);
            // Every cell's episodes come in seed order: the same sums in the same order.
            assert_eq!(format!("{:?}", got.comparisons), format!("{want:?}"), "{} {baseline:?}", path.display());
            assert_eq!((got.episodes, got.duplicates), (episodes, duplicates));
            assert!(
                got.comparisons.rows.len() == 2
                    && got.comparisons.without_baseline.len() == 3
                    && got.partial.is_empty()
            );
        }
    }
}

/// `a` and `b` equal to 1e-12 relative (NaN equal to NaN).
fn close(a: f64, b: f64) -> bool {
    (a.is_nan() && b.is_nan()) || a == b || (a - b).abs() <= 1e-12 * a.abs().max(b.abs())
}

#[test]
fn episodes_out_of_seed_order_and_a_sweep_held_twice_give_the_same_comparisons() {
    let dir = tempfile::tempdir().unwrap();
    let files = write_all(dir.path(), &results());
    let jsonl = files.iter().find(|p| p.extension().is_some_and(|e| e == "jsonl")).unwrap();
    let text = std::fs::read_to_string(jsonl).unwrap();
    // Reversed: every cell's seeds descend, so the sums run in another order.
    let reversed = dir.path().join("reversed.jsonl");
    std::fs::write(&reversed, text.lines().rev().map(|l| format!("{l}\n")).collect::<String>()).unwrap();
    // Twice: every (cell, seed) repeats, the first of each is kept.
    let twice = dir.path().join("twice.jsonl");
    std::fs::write(&twice, format!("{text}{text}")).unwrap();
    for path in [&reversed, &twice] {
        let (got, want, episodes, duplicates) = both(path, None, 900);
        assert_eq!((got.episodes, got.duplicates), (episodes, duplicates), "{}", path.display());
        assert_eq!(got.comparisons.rows.len(), want.rows.len());
        assert_eq!(got.comparisons.without_baseline, want.without_baseline);
        for (g, w) in got.comparisons.rows.iter().zip(&want.rows) {
            assert_eq!(
                (&g.game, &g.scenario, &g.policy_set, g.left_out),
                (&w.game, &w.scenario, &w.policy_set, w.left_out)
            );
            let pairs = [(Some(g.reward), Some(w.reward)), (g.win, w.win)];
            for (a, b) in pairs.into_iter().filter_map(|(a, b)| Some((a?, b?))) {
                assert_eq!(a.n, b.n);
                for (x, y) in [(a.mean, b.mean), (a.half, b.half), (a.unpaired_half, b.unpaired_half), (a.p, b.p)] {
                    assert!(close(x, y), "{} {}: {x} vs {y}", path.display(), g.policy_set);
                }
            }
            assert!(close(g.p_holm, w.p_holm));
        }
    }
    let (got, ..) = both(&twice, None, 900);
    assert!(got.duplicates > 0 && got.duplicates * 2 == got.episodes, "{} of {}", got.duplicates, got.episodes);
}

#[test]
fn errors_are_the_row_readers() {
    let dir = tempfile::tempdir().unwrap();
    let files = write_all(dir.path(), &results());
    let input = Input::file(&files[0]).unwrap();
    let got = compare_input(&input, Some("nobody"), BLOCK).err().unwrap().to_string();
    let want = compare_file(&input, Some("nobody")).err().unwrap().to_string();
    assert_eq!(got, want);
    assert!(got.contains("no policy set named \"nobody\""), "{got}");
    let empty = dir.path().join("empty.jsonl");
    std::fs::write(&empty, "").unwrap();
    let input = Input::file(&empty).unwrap();
    let got = compare_input(&input, None, BLOCK).err().unwrap().to_string();
    assert_eq!(got, compare_file(&input, None).err().unwrap().to_string());
    assert!(got.contains("holds no episode records"), "{got}");
}

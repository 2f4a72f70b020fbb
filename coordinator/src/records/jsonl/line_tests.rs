//! The hand-written JSON line scan ([`super::line`]) against `serde_json` (the reference):
//! on every line the writer makes for all four games, and on hand-written lines with escapes,
//! unicode, nested stats, odd numbers, reordered keys, whitespace and damage, the row read is
//! serde's (the team reward bit for bit) or the error is serde's, word for word.

use std::borrow::Cow;

use super::decode::json_row;
use super::json_row::JsonRow;
use super::line as json_line;

/// Field by field, the team reward by its bits (so -0.0 is not 0.0).
fn assert_same_row(what: &str, got: &JsonRow<'_>, want: &JsonRow<'_>) {
    assert_eq!(got, want, "{what}");
    assert_eq!(got.team_reward.to_bits(), want.team_reward.to_bits(), "{what}: team reward bits");
}

/// The scan's answer (falling back to serde where it declines) is serde's: the same row or the
/// same error.
fn assert_as_serde(line: &[u8]) -> Option<JsonRow<'_>> {
    let what = String::from_utf8_lossy(line).into_owned();
    let want = serde_json::from_slice::<JsonRow<'_>>(line);
    match (json_row(line), want) {
        (Ok(got), Ok(want)) => {
            assert_same_row(&what, &got, &want);
            Some(got)
        }
        (Err(got), Err(want)) => {
            assert_eq!(got.to_string(), want.to_string(), "{what}");
            None
        }
        (got, want) => panic!("{what}: {got:?} vs serde's {want:?}"),
    }
}

/// The scan itself reads `line` (it does not decline it) to serde's row.
fn assert_scanned(line: &str) {
    let got = json_line::row(line.as_bytes()).unwrap_or_else(|| panic!("the scan declined {line}"));
    let want = serde_json::from_str::<JsonRow<'_>>(line).unwrap();
    assert_same_row(line, &got, &want);
}

/// The scan declines `line` and the caller gets serde's answer (a row or an error).
fn assert_declined(line: &str) {
    assert!(json_line::row(line.as_bytes()).is_none(), "the scan read {line}");
    assert_as_serde(line.as_bytes());
}

const HEAD: &str = r#""sweep":"s-1","job":3,"game":"bucket_brigade","engine_version":"0.1.0+r1","scenario":"default""#;

/// A record as the writer makes it, with `policy_set`, `team_reward` and `stats` as given.
fn line(policy_set: &str, team_reward: &str, stats: &str) -> String {
    format!(
        r#"{{{HEAD},"policy_set":{policy_set},"seed":17,"outcome":"success","length":13,"truncated":false,"team_reward":{team_reward},"agent_rewards":[153.5,-1e-3,0],"trajectory_hash":"c9ced627273a6705","stats":{stats}}}"#
    )
}

#[test]
fn every_written_line_of_every_game_is_read_as_serde_reads_it() {
    let dir = tempfile::tempdir().unwrap();
    let files = crate::records::scan::tests::write_all(dir.path(), &crate::records::scan::tests::results());
    let text = std::fs::read_to_string(&files[0]).unwrap();
    let mut llm = 0;
    for line in text.lines() {
        assert_scanned(line);
        llm += usize::from(json_line::row(line.as_bytes()).unwrap().stats.llm.is_some());
    }
    assert!(text.lines().count() > 300 && llm > 0, "{} lines, {llm} with llm stats", text.lines().count());
    for game in ["bucket_brigade", "deception", "trolley", "cogsguard"] {
        assert!(text.contains(&format!("\"game\":\"{game}\"")), "{game}");
    }
}

#[test]
fn team_rewards_are_serdes_bit_for_bit() {
    // Every kind of double the writer can print (serde's shortest form), from random bits.
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    for _ in 0..20_000 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let v = f64::from_bits(x);
        if v.is_finite() {
            assert_scanned(&line("\"p\"", &serde_json::to_string(&v).unwrap(), "{}"));
        }
    }
    for text in [
        "74.0",
        "-0.0",
        "-0",
        "0",
        "1e-7",
        "1E+3",
        "-2.5e-3",
        "2.2250738585072011e-308",
        "4.9e-324",
        "1.7976931348623157e308",
        "9007199254740993",
        "18446744073709551616",
        "123456789012345678901234567890.123456789e-5",
        "0.1000000000000000055511151231257827021181583404541015625",
        "1e-400",
    ] {
        assert_scanned(&line("\"p\"", text, "{}"));
    }
    // Out of range, or not JSON's grammar: serde's error.
    for text in ["1e400", "-1e400", "01", "1.", ".5", "+1", "1e", "0x10", "NaN", "Infinity", "null", "\"1\""] {
        assert_declined(&line("\"p\"", text, "{}"));
    }
}

#[test]
fn escapes_unicode_nesting_order_and_whitespace_are_read_as_serde_reads_them() {
    // Escaped strings (unescaped by serde), raw and escaped unicode, a surrogate pair.
    for name in [r#""a \"quoted\" \\ name\n""#, r#""h\u00e9ros \ud83d\ude00 \/""#, "\"héros ✓ 🚒 <&>\""] {
        let text = line(name, "1.5", "{}");
        assert_scanned(&text);
        let row = json_line::row(text.as_bytes()).unwrap();
        assert!(matches!(row.policy_set, Cow::Owned(_)) == name.contains('\\'), "{name}: borrowed unless escaped");
    }
    // Stats nested in every way, strings holding brackets and quotes, and an llm stat.
    let nested = r#"{"a":[1,[2,{"b":"}]\"["}],[],{}],"c":{"d":null,"e":true,"f":false,"g":"\u0041"},"llm":{"1":{"prompt_tokens":5,"completion_tokens":2}},"h":-0.5e+2}"#;
    assert_scanned(&line("\"p\"", "3.25", nested));
    assert_scanned(&line("\"p\"", "3.25", r#"{"llm":null}"#));
    assert_scanned(&line("\"p\"", "3.25", r#"{"llm":[1,2,{"x":"y"}],"z":0}"#));
    // Keys in another order, no stats, unknown keys, spaces everywhere, big seeds.
    assert_scanned(
        r#"{"team_reward":-0.0,"outcome":"x","length":4294967295,"seed":18446744073709551615,"policy_set":"p","scenario":"s","engine_version":"v","game":"g","sweep":"w","extra":{"k":[true]}}"#,
    );
    assert_scanned(
        r#"  { "sweep" : "w" , "game":"g","engine_version":"v","scenario":"s","policy_set":"p","outcome":"o","seed" : 0 ,"length":0,"team_reward": 1e-7 , "stats" : { "llm" : { "1" : { "prompt_tokens" : 1 } } } }  "#,
    );
    // The writer's order departed from midway, and a key of another line between.
    let swapped =
        line("\"p\"", "1.0", "{}").replace(r#""seed":17,"outcome":"success""#, r#""outcome":"success","seed":17"#);
    assert!(swapped.contains(r#""outcome":"success","seed":17"#));
    assert_scanned(&swapped);
    assert_scanned(&line("\"p\"", "1.0", "{}").replace(r#","job":3"#, r#","note":"x","job":3"#));
    // A tab or CR is whitespace to serde: the scan leaves such a line to serde, which reads it.
    assert_declined(&line("\"p\"", "1.0", "{}").replace(",\"seed\"", ",\t\"seed\""));
    assert_declined(&format!("{}\r", line("\"p\"", "1.0", "{}")));
    // An escaped key is unescaped by serde: left to it.
    assert_declined(&line("\"p\"", "1.0", "{}").replace("\"seed\"", "\"se\\u0065d\""));
    // Invalid UTF-8 in a skipped string: serde does not check it, so the row is read.
    let mut bytes = line("\"p\"", "1.0", "{}").into_bytes();
    let at = bytes.windows(4).position(|w| w == b"c9ce").unwrap();
    bytes[at] = 0xff;
    assert!(json_line::row(&bytes).is_none());
    assert!(assert_as_serde(&bytes).is_some(), "serde reads it");
}

#[test]
fn a_quote_backslash_or_control_byte_is_found_at_every_offset_of_a_string() {
    // Strings are stepped over eight bytes at a time: put each special byte at each offset of
    // needed and skipped strings, before and after non-ASCII text.
    for len in 0..20 {
        for at in 0..=len {
            for (special, fast) in
                [("\\\"", true), ("\\n", true), ("\\u00e9", true), ("\u{1}", false), ("\u{1f}", false)]
            {
                for plain in ["a", "é"] {
                    let text = format!("{}{special}{}", plain.repeat(at), plain.repeat(len - at));
                    let name = format!("\"{text}\"");
                    let needed = line(&name, "1.0", "{}");
                    let skipped = line("\"p\"", "1.0", &format!("{{\"note\":{name}}}"));
                    for l in [needed, skipped] {
                        assert_eq!(json_line::row(l.as_bytes()).is_some(), fast, "{l}");
                        assert_as_serde(l.as_bytes());
                    }
                }
            }
        }
    }
}

#[test]
fn broken_lines_give_serdes_error() {
    let good = line("\"p\"", "2.0", r#"{"llm":{"1":{"prompt_tokens":3}}}"#);
    let broken = [
        String::new(),
        "garbage".to_string(),
        r#"{"game": 1}"#.to_string(),
        "[\"s\",\"g\"]".to_string(),
        good[..good.len() - 1].to_string(),
        good[..good.len() / 2].to_string(),
        format!("{good} x"),
        format!("{good}}}"),
        good.replace("}}}", "},}}"),
        good.replace(",\"seed\":17", ",\"seed\":17,\"seed\":18"),
        good.replace(",\"seed\":17", ""),
        good.replace("\"stats\":{", "\"stats\":{\"llm\":1,"),
        good.replace("\"seed\":17", "\"seed\":-1"),
        good.replace("\"seed\":17", "\"seed\":1.0"),
        good.replace("\"seed\":17", "\"seed\":017"),
        good.replace("\"seed\":17", "\"seed\":18446744073709551616"),
        good.replace("\"length\":13", "\"length\":4294967296"),
        good.replace("\"length\":13", "\"length\":\"13\""),
        good.replace("\"policy_set\":\"p\"", "\"policy_set\":\"p\\x\""),
        good.replace("\"policy_set\":\"p\"", "\"policy_set\":\"\\ud800\""),
        good.replace("\"policy_set\":\"p\"", "\"policy_set\":null"),
        good.replace("\"truncated\":false", "\"truncated\":fals"),
        good.replace("\"truncated\":false", "\"truncated\":nul"),
        good.replace("[153.5,-1e-3,0]", "[153.5,,0]"),
        good.replace("[153.5,-1e-3,0]", "[153.5,-1e-3,0,]"),
        good.replace("[153.5,-1e-3,0]", "[153.5,-1e-3,0}"),
        good.replace("[153.5,-1e-3,0]", "[1.e3]"),
        good.replace("\"c9ced627273a6705\"", "\"c9ced\\q\""),
        good.replace("\"c9ced627273a6705\"", "\"c9ced\u{1}\""),
        good.replace("\"stats\":{", "\"stats\":{1:2,"),
        good.replace("\"stats\":{", "\"stats\":null,\"x\":{"),
        good.replace("\"prompt_tokens\":3", "\"prompt_tokens\":1e400"),
    ];
    for bad in &broken {
        assert!(assert_as_serde(bad.as_bytes()).is_none(), "serde refuses {bad}");
        assert!(json_line::row(bad.as_bytes()).is_none(), "the scan declines {bad}");
    }
    // Nesting deeper than the scan follows is left to serde, which reads it.
    let deep = format!("{}1{}", "[".repeat(100), "]".repeat(100));
    assert_declined(&line("\"p\"", "1.0", &format!("{{\"deep\":{deep}}}")));
}

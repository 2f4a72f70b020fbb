//! The distribution and correction behind `compare`: Student's t distribution (two-sided
//! p-values and the quantile of a 95% interval) and Holm's step-down correction of a family of
//! p-values.
//!
//! Written out here rather than pulled from a statistics crate: three functions, each checked
//! against published table values or values computed to 30 digits in the tests below.

/// ln Γ(x) for x > 0 (Lanczos, g = 7, nine coefficients: about 15 significant digits).
pub fn ln_gamma(x: f64) -> f64 {
    const G: f64 = 7.0;
    const C: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x < 0.5 {
        // Reflection keeps the series in its accurate range.
        let pi = std::f64::consts::PI;
        return (pi / (pi * x).sin()).ln() - ln_gamma(1.0 - x);
    }
    let x = x - 1.0;
    let mut sum = C[0];
    for (i, c) in C.iter().enumerate().skip(1) {
        sum += c / (x + i as f64);
    }
    let t = x + G + 0.5;
    0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + sum.ln()
}

/// The continued fraction of the incomplete beta function (modified Lentz).
fn beta_fraction(a: f64, b: f64, x: f64) -> f64 {
    const TINY: f64 = 1e-300;
    let (qab, qap, qam) = (a + b, a + 1.0, a - 1.0);
    let mut c = 1.0;
    let mut d = 1.0 - qab * x / qap;
    if d.abs() < TINY {
        d = TINY;
    }
    d = 1.0 / d;
    let mut h = d;
    for m in 1..=400 {
        let m = f64::from(m);
        let m2 = 2.0 * m;
        let aa = m * (b - m) * x / ((qam + m2) * (a + m2));
        d = 1.0 + aa * d;
        d = if d.abs() < TINY { TINY } else { d };
        c = 1.0 + aa / c;
        c = if c.abs() < TINY { TINY } else { c };
        d = 1.0 / d;
        h *= d * c;
        let aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
        d = 1.0 + aa * d;
        d = if d.abs() < TINY { TINY } else { d };
        c = 1.0 + aa / c;
        c = if c.abs() < TINY { TINY } else { c };
        d = 1.0 / d;
        let del = d * c;
        h *= del;
        if (del - 1.0).abs() < 1e-15 {
            break;
        }
    }
    h
}

/// The regularised incomplete beta function I_x(a, b), for x in [0, 1].
pub fn incomplete_beta(a: f64, b: f64, x: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    if x >= 1.0 {
        return 1.0;
    }
    let front = (ln_gamma(a + b) - ln_gamma(a) - ln_gamma(b) + a * x.ln() + b * (1.0 - x).ln()).exp();
    // The fraction converges fast on the side of the mean; use the symmetry on the other.
    if x < (a + 1.0) / (a + b + 2.0) {
        front * beta_fraction(a, b, x) / a
    } else {
        1.0 - front * beta_fraction(b, a, 1.0 - x) / b
    }
}

/// P(|T| ≥ |t|) for Student's t with `df` degrees of freedom: the two-sided p-value.
pub fn t_two_sided_p(t: f64, df: f64) -> f64 {
    if t.is_nan() || df.is_nan() || df <= 0.0 {
        return f64::NAN;
    }
    if t.is_infinite() {
        return 0.0;
    }
    incomplete_beta(df / 2.0, 0.5, df / (df + t * t))
}

/// The t quantile of a two-sided 95% interval (the 0.975 quantile) with `df` degrees of
/// freedom, by bisection on [`t_two_sided_p`]; the normal 1.959964 as `df` grows without bound.
pub fn t95(df: f64) -> f64 {
    if df.is_nan() || df <= 0.0 {
        return f64::NAN;
    }
    if df > 1e7 {
        return 1.959_963_984_540_054;
    }
    let (mut lo, mut hi) = (0.0f64, 1.0e3f64);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if t_two_sided_p(mid, df) > 0.05 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

/// Holm's step-down adjustment: each p-value of the family multiplied by the number of
/// hypotheses not yet rejected at its rank, made monotone, capped at 1. NaN entries (no test)
/// are left NaN and are not counted in the family.
pub fn holm(p: &[f64]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..p.len()).filter(|&i| !p[i].is_nan()).collect();
    order.sort_by(|&a, &b| p[a].total_cmp(&p[b]));
    let m = order.len();
    let mut adjusted = vec![f64::NAN; p.len()];
    let mut running = 0.0f64;
    for (rank, &i) in order.iter().enumerate() {
        running = running.max(((m - rank) as f64 * p[i]).min(1.0));
        adjusted[i] = running;
    }
    adjusted
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    #[test]
    fn t_quantiles_match_the_tables() {
        // Two-sided 95% critical values of Student's t (any statistics table).
        for (df, t) in [
            (1.0, 12.706_204_736),
            (2.0, 4.302_652_730),
            (5.0, 2.570_581_836),
            (10.0, 2.228_138_852),
            (30.0, 2.042_272_456),
            (100.0, 1.983_971_519),
            (999.0, 1.962_341_461),
        ] {
            assert!(close(t95(df), t, 1e-6), "df {df}: {} vs {t}", t95(df));
        }
        assert!(close(t95(1e9), 1.959_964, 1e-6));
        assert!(t95(0.0).is_nan());
    }

    #[test]
    fn t_p_values_match_the_tables() {
        // 2 P(T ≥ |t|) = I_{df/(df+t²)}(df/2, 1/2), computed to 30 digits (mpmath.betainc).
        assert!(close(t_two_sided_p(2.0, 10.0), 0.073_388_034_770_740_38, 1e-12));
        assert!(close(t_two_sided_p(-2.0, 10.0), 0.073_388_034_770_740_38, 1e-12));
        assert!(close(t_two_sided_p(1.0, 1.0), 0.5, 1e-12), "Cauchy: P(|T| ≥ 1) = 1/2");
        assert!(close(t_two_sided_p(0.0, 7.0), 1.0, 1e-12));
        assert!(close(t_two_sided_p(5.0, 50.0), 7.433_212_247_232_563e-6, 1e-15));
        assert_eq!(t_two_sided_p(f64::INFINITY, 3.0), 0.0);
    }

    #[test]
    fn holm_matches_a_hand_computed_case() {
        // Sorted: 0.005·4 = 0.02, 0.01·3 = 0.03, 0.03·2 = 0.06, 0.04·1 = 0.04 → max(0.06, 0.04).
        let adjusted = holm(&[0.01, 0.04, 0.03, 0.005]);
        let expected = [0.03, 0.06, 0.06, 0.02];
        for (a, e) in adjusted.iter().zip(expected) {
            assert!(close(*a, e, 1e-12), "{adjusted:?}");
        }
        // A NaN (no test) is neither adjusted nor counted: m = 2 here, so 0.02·2 = 0.04.
        let adjusted = holm(&[0.7, f64::NAN, 0.02]);
        assert!(
            close(adjusted[0], 0.7, 1e-12) && adjusted[1].is_nan() && close(adjusted[2], 0.04, 1e-12),
            "{adjusted:?}"
        );
        // Capped at 1: 0.6·2 = 1.2 → 1, then max(1, 0.9) = 1.
        assert_eq!(holm(&[0.6, 0.9]), vec![1.0, 1.0]);
        assert!(holm(&[]).is_empty());
    }
}

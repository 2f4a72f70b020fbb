//! A small dense solver for the ranking model's normal equations: Cholesky factorisation of a
//! symmetric positive definite matrix (row-major, n × n), solves and the inverse. Rosters are
//! tens of policies, so O(n³) is nothing.

/// The lower-triangular Cholesky factor L of `a` (A = L·Lᵀ), or `None` when `a` is not
/// positive definite.
pub fn cholesky(a: &[f64], n: usize) -> Option<Vec<f64>> {
    assert_eq!(a.len(), n * n, "an n × n matrix");
    let mut l = vec![0.0; n * n];
    for i in 0..n {
        for j in 0..=i {
            let mut sum = a[i * n + j];
            for k in 0..j {
                sum -= l[i * n + k] * l[j * n + k];
            }
            if i == j {
                if sum <= 0.0 || !sum.is_finite() {
                    return None;
                }
                l[i * n + i] = sum.sqrt();
            } else {
                l[i * n + j] = sum / l[j * n + j];
            }
        }
    }
    Some(l)
}

/// Solves A·x = b given the Cholesky factor `l` of A.
pub fn solve(l: &[f64], n: usize, b: &[f64]) -> Vec<f64> {
    let mut y = vec![0.0; n];
    for i in 0..n {
        let mut sum = b[i];
        for k in 0..i {
            sum -= l[i * n + k] * y[k];
        }
        y[i] = sum / l[i * n + i];
    }
    let mut x = vec![0.0; n];
    for i in (0..n).rev() {
        let mut sum = y[i];
        for k in i + 1..n {
            sum -= l[k * n + i] * x[k];
        }
        x[i] = sum / l[i * n + i];
    }
    x
}

/// A⁻¹ given the Cholesky factor `l` of A (row-major).
pub fn inverse(l: &[f64], n: usize) -> Vec<f64> {
    let mut inv = vec![0.0; n * n];
    let mut e = vec![0.0; n];
    for j in 0..n {
        e.iter_mut().for_each(|v| *v = 0.0);
        e[j] = 1.0;
        for (i, v) in solve(l, n, &e).into_iter().enumerate() {
            inv[i * n + j] = v;
        }
    }
    inv
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn solves_and_inverts_a_known_system() {
        // A = [[4, 2, 0], [2, 5, 1], [0, 1, 3]], x = [1, -2, 3] → b = A·x.
        let a = [4.0, 2.0, 0.0, 2.0, 5.0, 1.0, 0.0, 1.0, 3.0];
        let b = [0.0, -5.0, 7.0];
        let l = cholesky(&a, 3).unwrap();
        let x = solve(&l, 3, &b);
        for (got, want) in x.iter().zip([1.0, -2.0, 3.0]) {
            assert!((got - want).abs() < 1e-12, "{x:?}");
        }
        let inv = inverse(&l, 3);
        for i in 0..3 {
            for j in 0..3 {
                let v: f64 = (0..3).map(|k| a[i * 3 + k] * inv[k * 3 + j]).sum();
                assert!((v - f64::from(u8::from(i == j))).abs() < 1e-12, "A·A⁻¹ at {i},{j} = {v}");
            }
        }
    }

    #[test]
    fn refuses_a_singular_matrix() {
        assert!(cholesky(&[1.0, 1.0, 1.0, 1.0], 2).is_none());
        assert!(cholesky(&[-1.0], 1).is_none());
    }
}

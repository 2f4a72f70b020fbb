//! Mixed teams for ranking experiments: `teams` teams of `team_size` seats drawn from a roster,
//! seeded, so that every policy fills the same number of seats, every pair of policies meets
//! in at least one team (as evenly as the numbers allow), no team holds a policy twice when the
//! roster is at least as large as a team, and each policy sits in each seat about equally often.
//!
//! The draw uses only [`simfleet::seeding::Stream`] primitives (stream 0 of the ranking's
//! `seed`), so the same section gives the same teams on any machine and any version of `rand`.
//!
//! A team's policy set name carries its members by seat, `team-007 (firefighter + hero + liar +
//! helper)`, each by its roster name (the spec itself unless the roster names it): records hold
//! only the policy set name, and `coordinator rank` recovers each team from it. Neither specs
//! (docs/sweeps.md: spaces are percent-encoded) nor roster names contain a space, so splitting on
//! `" + "` is unambiguous.

use simfleet::seeding::Stream;

/// Cost of a pair of policies that never meet: above any achievable sum of squares.
const UNCOVERED: i64 = 1 << 40;
/// Cost of each pair of seats in one team held by the same policy.
const DUPLICATE: i64 = 1 << 20;

/// Draws `teams` teams of `team_size` seats over roster indexes `0..roster`; each team lists
/// roster indexes by seat. Errors say which number to change.
pub fn generate(roster: usize, team_size: usize, teams: usize, seed: u64) -> Result<Vec<Vec<usize>>, String> {
    let (p, k, t) = (roster, team_size, teams);
    feasible(p, k, t)?;
    let mut stream = Stream::new(seed, 0);
    let mut deck: Vec<usize> = (0..t * k).map(|i| i % p).collect();
    stream.shuffle(&mut deck);
    let mut teams: Vec<Vec<usize>> = deck.chunks(k).map(<[usize]>::to_vec).collect();
    let cost = improve(&mut teams, p, &mut stream);
    if cost >= UNCOVERED {
        return Err(format!("could not make every pair of the {p} policies meet in {t} teams of {k}: use more teams"));
    }
    if p >= k && cost >= DUPLICATE {
        return Err(format!("could not keep every policy to one seat per team in {t} teams of {k}: use more teams"));
    }
    balance_seats(&mut teams, p, &mut stream);
    Ok(teams)
}

/// Whether `t` teams of `k` seats can seat a roster of `p` policies equally with every pair
/// meeting: an error saying what to change otherwise.
fn feasible(p: usize, k: usize, t: usize) -> Result<(), String> {
    if p < 2 {
        return Err(format!(
            "the roster has {p} polic{}: a ranking needs at least 2",
            if p == 1 { "y" } else { "ies" }
        ));
    }
    if k < 2 || t < 1 {
        return Err(format!("need team_size ≥ 2 and teams ≥ 1 (got team_size = {k}, teams = {t})"));
    }
    if !(t * k).is_multiple_of(p) {
        let step = p / gcd(p, k);
        return Err(format!(
            "teams × team_size = {t} × {k} = {} seats do not split equally over {p} policies: use a number of \
             teams that is a multiple of {step} (e.g. {})",
            t * k,
            t.div_ceil(step).max(1) * step
        ));
    }
    let pairs = p * (p - 1) / 2;
    if p >= k && t * k * (k - 1) / 2 < pairs {
        let need = pairs.div_ceil(k * (k - 1) / 2);
        return Err(format!(
            "{t} teams of {k} hold {} pairs of seats, fewer than the {pairs} pairs of {p} policies: every pair \
             cannot meet; use at least {need} teams",
            t * k * (k - 1) / 2
        ));
    }
    Ok(())
}

/// Swaps seats between teams (drawn from `stream`) while the cost of who meets whom does not
/// grow, until it reaches its floor or the iterations run out; returns the cost reached.
fn improve(teams: &mut [Vec<usize>], p: usize, stream: &mut Stream) -> i64 {
    let (t, k) = (teams.len(), teams.first().map_or(0, Vec::len));
    let mut meet = vec![0i64; p * p];
    for team in teams.iter() {
        for (i, &a) in team.iter().enumerate() {
            for &b in &team[i + 1..] {
                meet[a.min(b) * p + a.max(b)] += 1;
            }
        }
    }
    let floor = best_cost(p, k, t);
    let mut cost = total_cost(&meet, p);
    let max_iterations = 200_000 + 400 * t * k;
    let mut changes: Vec<(usize, i64)> = Vec::with_capacity(4 * k);
    for _ in 0..max_iterations {
        if cost <= floor || t < 2 {
            break;
        }
        let (a, b) = (stream.index(t), stream.index(t));
        let (i, j) = (stream.index(k), stream.index(k));
        let (x, y) = (teams[a][i], teams[b][j]);
        if a == b || x == y {
            continue;
        }
        changes.clear();
        for (_, &z) in teams[a].iter().enumerate().filter(|(s, _)| *s != i) {
            changes.push((x.min(z) * p + x.max(z), -1));
            changes.push((y.min(z) * p + y.max(z), 1));
        }
        for (_, &w) in teams[b].iter().enumerate().filter(|(s, _)| *s != j) {
            changes.push((y.min(w) * p + y.max(w), -1));
            changes.push((x.min(w) * p + x.max(w), 1));
        }
        changes.sort_unstable();
        let mut delta = 0;
        let mut n = 0;
        while n < changes.len() {
            let (pair, mut d) = changes[n];
            n += 1;
            while n < changes.len() && changes[n].0 == pair {
                d += changes[n].1;
                n += 1;
            }
            delta += pair_cost(pair, p, meet[pair] + d) - pair_cost(pair, p, meet[pair]);
        }
        // Sideways moves are taken too: they let the search walk across plateaus.
        if delta <= 0 {
            for &(pair, d) in &changes {
                meet[pair] += d;
            }
            teams[a][i] = y;
            teams[b][j] = x;
            cost += delta;
        }
    }
    cost
}

fn gcd(a: usize, b: usize) -> usize {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

fn pair_cost(pair: usize, p: usize, m: i64) -> i64 {
    if pair / p == pair % p {
        DUPLICATE * m
    } else if m == 0 {
        UNCOVERED
    } else {
        m * m
    }
}

fn total_cost(meet: &[i64], p: usize) -> i64 {
    (0..p).flat_map(|a| (a..p).map(move |b| a * p + b)).map(|pair| pair_cost(pair, p, meet[pair])).sum()
}

/// The lowest cost any draw can reach: the fewest same-policy seat pairs a team must have, and
/// the remaining meetings spread as evenly as possible over the pairs.
fn best_cost(p: usize, k: usize, t: usize) -> i64 {
    let (q, r) = (k / p, k % p);
    let dup_per_team = (r * (q + 1) * q / 2 + (p - r) * q * q.saturating_sub(1) / 2) as i64;
    let pairs = (p * (p - 1) / 2) as i64;
    let meetings = (t * k * (k - 1) / 2) as i64 - dup_per_team * t as i64;
    let (base, extra) = (meetings / pairs, meetings % pairs);
    let spread = extra * (base + 1) * (base + 1) + (pairs - extra) * base * base;
    let uncovered = if base == 0 { (pairs - extra) * UNCOVERED } else { 0 };
    DUPLICATE * dup_per_team * t as i64 + spread + uncovered
}

/// Orders each team's seats so every policy sits in every seat about equally often (seats
/// differ: in Bucket Brigade seat i owns house i).
fn balance_seats(teams: &mut [Vec<usize>], p: usize, stream: &mut Stream) {
    let k = teams.first().map_or(0, Vec::len);
    let mut seat_count = vec![0u32; p * k];
    for team in teams.iter_mut() {
        let mut left = team.clone();
        stream.shuffle(&mut left);
        let mut seats: Vec<usize> = (0..k).collect();
        stream.shuffle(&mut seats);
        for &s in &seats {
            let (pos, _) =
                left.iter().enumerate().min_by_key(|(_, &m)| seat_count[m * k + s]).expect("a member per seat");
            let m = left.remove(pos);
            seat_count[m * k + s] += 1;
            team[s] = m;
        }
    }
}

/// The policy set name of team `index` (1-based) of `count`: `<prefix>-007 (a + b + c + d)`.
pub fn team_name(prefix: &str, index: usize, count: usize, members: &[&str]) -> String {
    let width = count.to_string().len().max(3);
    format!("{prefix}-{index:0width$} ({})", members.join(" + "))
}

/// The members (policy specs by seat) of a policy set named by [`team_name`], or `None` when
/// the name is not a team name.
pub fn members_of(name: &str) -> Option<Vec<&str>> {
    let (head, rest) = name.split_once(" (")?;
    let inner = rest.strip_suffix(')')?;
    let (prefix, number) = head.rsplit_once('-')?;
    let plain = |s: &str| !s.is_empty() && !s.contains(' ');
    if !plain(prefix) || number.is_empty() || !number.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let members: Vec<&str> = inner.split(" + ").collect();
    members.iter().all(|m| plain(m)).then_some(members)
}

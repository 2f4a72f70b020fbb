//! §13: the same job gives the same records and replays, however it is run, split or ordered
//! (the games' determinism driver).

use crate::games::testing::same_job_same_bytes;
use crate::games::GameKind;

#[test]
fn same_job_same_bytes_however_run() {
    let mixed =
        ["persuadable", "random", "contrarian", "utilitarian?skip=0.5", "debater?operator=random&p_majority=0.2"];
    same_job_same_bytes(GameKind::Trolley, "balanced_5p", &mixed, 0, 30);
    same_job_same_bytes(GameKind::Trolley, "large_10p", &["persuadable"; 10], 100, 20);
}

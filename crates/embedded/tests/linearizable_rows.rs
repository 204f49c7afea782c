//! Puts and check-and-puts of the same cells from several threads, with a clock that ticks
//! every few tens of microseconds, make a linearizable history (checked with the chaos crate's
//! checker). Found by the fault campaign (issue 45): a put took its timestamp before waiting
//! for the row lock that a check-and-put held; the check-and-put, stamped a millisecond later,
//! then hid the put that was applied after it, and the acknowledged put was lost.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use basalt_chaos::linearizability::{Operation, check};
use basalt_chaos::models::{RegisterOp, RegisterOut, Registers};
use basalt_embedded::{CheckAction, CheckAndMutate, CompareOperator, Condition, Get, Put};

mod support;

#[test]
fn puts_and_check_and_puts_of_one_cell_are_linearizable() {
    let (conn, clock) = support::connection_at(1_000_000);
    let table = support::create_table(&conn, "t", &["f"]);
    let stop = Arc::new(AtomicBool::new(false));
    let start = Instant::now();
    let now = move || u64::try_from(start.elapsed().as_nanos()).unwrap();
    let ticker = {
        let (clock, stop) = (Arc::clone(&clock), Arc::clone(&stop));
        std::thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                clock.advance(1);
                std::thread::sleep(Duration::from_micros(20));
            }
        })
    };
    let keys = ["a", "b"];
    let history: Vec<_> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..4u64)
            .map(|client| {
                let table = &table;
                s.spawn(move || {
                    let mut ops = Vec::new();
                    let mut last = [0i64; 2];
                    for i in 0..2500i64 {
                        let k = usize::try_from((i + client as i64) % 2).unwrap();
                        let row = keys[k];
                        let value = (client as i64 + 1) * 1_000_000 + i;
                        let call = now();
                        let (op, out) = match i % 3 {
                            0 => {
                                table
                                    .put(&Put::new(row).add_column(
                                        "f",
                                        "v",
                                        value.to_be_bytes().to_vec(),
                                    ))
                                    .unwrap();
                                (RegisterOp::Write(value), RegisterOut::Written)
                            }
                            1 => {
                                let cam = CheckAndMutate::new(
                                    row,
                                    Condition::matches(
                                        "f",
                                        "v",
                                        CompareOperator::Equal,
                                        last[k].to_be_bytes().to_vec(),
                                    ),
                                    CheckAction::Put(Put::new(row).add_column(
                                        "f",
                                        "v",
                                        value.to_be_bytes().to_vec(),
                                    )),
                                );
                                let done = table.check_and_mutate(&cam).unwrap().success;
                                (
                                    RegisterOp::Cas {
                                        from: last[k],
                                        to: value,
                                    },
                                    RegisterOut::Cas(done),
                                )
                            }
                            _ => {
                                let got = table.get(&Get::new(row)).unwrap();
                                let read = got
                                    .value(b"f", b"v")
                                    .map(|v| i64::from_be_bytes(v.try_into().unwrap()));
                                if let Some(v) = read {
                                    last[k] = v;
                                }
                                (RegisterOp::Read, RegisterOut::Read(read))
                            }
                        };
                        ops.push(Operation {
                            client,
                            input: (row.to_owned(), op),
                            call,
                            ret: now(),
                            output: out,
                        });
                    }
                    ops
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().unwrap())
            .collect()
    });
    stop.store(true, Ordering::Relaxed);
    ticker.join().unwrap();
    let verdict = check(&Registers, &history, Duration::from_secs(60));
    if let basalt_chaos::linearizability::Verdict::Illegal { key, stuck_at, .. } = &verdict {
        let op = stuck_at.map(|i| &history[i]);
        panic!("register {key} is not linearizable: cannot place {op:?}");
    }
    assert!(verdict.is_linearizable(), "{verdict:?}");
}

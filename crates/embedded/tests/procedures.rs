//! The master's record of procedures (`list_procedures`, `list_locks`): a catalog change that
//! waits for the DDL lock is listed WAITING on the lock of the one holding it, and each ends
//! SUCCESS or FAILED with its error.

use basalt_client::prelude::*;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use basalt_common::procedure::{Resource, State};
use basalt_embedded::{ColumnFamilyDescriptor, Connection, TableDescriptor};

#[test]
fn a_waiting_procedure_is_listed_on_the_lock_it_waits_for() {
    let conn = Connection::in_memory();
    let master = conn.engine().master();
    let (held_tx, held_rx) = mpsc::channel();
    let (release_tx, release_rx) = mpsc::channel::<()>();
    let holder = {
        let master = std::sync::Arc::clone(&master);
        std::thread::spawn(move || {
            master.procedure_log.track(
                "ModifyTableProcedure",
                Resource::Table("default:held".into()),
                vec![("table".into(), "held".into())],
                || {
                    let _ddl = master.ddl();
                    held_tx.send(()).unwrap();
                    release_rx.recv_timeout(Duration::from_secs(30)).unwrap();
                    Ok(())
                },
            )
        })
    };
    held_rx.recv_timeout(Duration::from_secs(30)).unwrap();
    let creator = {
        let conn = conn.clone();
        std::thread::spawn(move || {
            conn.create_table(
                TableDescriptor::named("t")
                    .unwrap()
                    .with_family(ColumnFamilyDescriptor::new("f")),
                &[],
            )
        })
    };
    // The create waits for the lock the modify holds.
    let deadline = Instant::now() + Duration::from_secs(30);
    let locks = loop {
        let locks = conn.locks().unwrap();
        if locks.first().is_some_and(|l| !l.waiting.is_empty()) {
            break locks;
        }
        assert!(Instant::now() < deadline, "never waiting: {locks:?}");
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(locks.len(), 1, "{locks:?}");
    assert_eq!(locks[0].resource, Resource::Table("default:held".into()));
    assert!(locks[0].owner.class_name.ends_with("ModifyTableProcedure"));
    assert!(
        locks[0].waiting[0]
            .class_name
            .ends_with("CreateTableProcedure")
    );
    let waiting = conn
        .procedures()
        .unwrap()
        .into_iter()
        .find(|p| p.class_name.ends_with("CreateTableProcedure"))
        .unwrap();
    assert_eq!(waiting.state, State::Waiting);

    release_tx.send(()).unwrap();
    holder.join().unwrap().unwrap();
    creator.join().unwrap().unwrap();
    assert!(conn.locks().unwrap().is_empty());
    let done: Vec<State> = conn.procedures().unwrap().iter().map(|p| p.state).collect();
    assert_eq!(done, [State::Success, State::Success]);

    // A failed one keeps its error.
    let err = conn.delete_table(&"nope".parse().unwrap()).unwrap_err();
    let last = conn.procedures().unwrap().pop().unwrap();
    assert_eq!(last.state, State::Failed);
    assert_eq!(last.error.as_deref(), Some(err.to_string().as_str()));
}

#[test]
fn bypass_ends_a_waiting_procedure_and_frees_the_lock_of_a_stuck_one() {
    let conn = Connection::in_memory();
    let master = conn.engine().master();
    let (held_tx, held_rx) = mpsc::channel();
    let (release_tx, release_rx) = mpsc::channel::<()>();
    // A procedure stuck holding the DDL lock.
    let stuck = {
        let master = std::sync::Arc::clone(&master);
        std::thread::spawn(move || {
            master.procedure_log.track(
                "ModifyTableProcedure",
                Resource::Table("default:held".into()),
                vec![],
                || {
                    let _ddl = master.ddl();
                    held_tx.send(()).unwrap();
                    release_rx.recv_timeout(Duration::from_secs(60)).unwrap();
                    Ok(())
                },
            )
        })
    };
    held_rx.recv_timeout(Duration::from_secs(30)).unwrap();
    let create = |name: &'static str| {
        let conn = conn.clone();
        std::thread::spawn(move || {
            conn.create_table(
                TableDescriptor::named(name)
                    .unwrap()
                    .with_family(ColumnFamilyDescriptor::new("f")),
                &[],
            )
        })
    };
    let waiting_id = |conn: &Connection, n: usize| {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let waiting: Vec<u64> = conn
                .procedures()
                .unwrap()
                .iter()
                .filter(|p| p.state == State::Waiting)
                .map(|p| p.id)
                .collect();
            if waiting.len() >= n {
                return waiting;
            }
            assert!(Instant::now() < deadline, "not waiting: {waiting:?}");
            std::thread::sleep(Duration::from_millis(20));
        }
    };
    // A waiting create, bypassed, ends without making its table.
    let first = create("a");
    let id = waiting_id(&conn, 1)[0];
    assert!(master.procedure_log.bypass(id));
    let err = first.join().unwrap().unwrap_err().to_string();
    assert!(err.contains("bypassed"), "{err}");
    assert!(!conn.table_exists(&"a".parse().unwrap()).unwrap());

    // The stuck one, bypassed, lets the next create run while it still waits.
    let second = create("b");
    waiting_id(&conn, 1);
    let stuck_id = conn.locks().unwrap()[0].owner.id;
    assert!(master.procedure_log.bypass(stuck_id));
    second.join().unwrap().unwrap();
    assert!(conn.table_exists(&"b".parse().unwrap()).unwrap());
    assert!(!master.procedure_log.bypass(stuck_id), "no longer running");
    release_tx.send(()).unwrap();
    stuck.join().unwrap().unwrap();
    let stuck_record = conn
        .procedures()
        .unwrap()
        .into_iter()
        .find(|p| p.id == stuck_id)
        .unwrap();
    assert_eq!(stuck_record.state, State::Success);
    assert!(stuck_record.error.unwrap().contains("bypassed"));
}

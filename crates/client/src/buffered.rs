//! [`BufferedMutator`]: HBase's buffered writes. Puts and deletes collect in a client-side
//! buffer; once it holds [`BufferedMutatorParams::write_buffer_size`] bytes (HBase's
//! `hbase.client.write.buffer`, 2 MiB) the buffer goes to a background thread that sends it as
//! one batch (Multi calls over the native RPC, `Table::batch` embedded) while the caller fills
//! the next one. At most one batch is being sent at a time: a caller that fills a second
//! buffer before the first is sent waits for it, so memory stays bounded.
//!
//! As in HBase, a buffered mutation that fails does not fail the call that buffered it: the
//! failure is reported by the next `mutate`, `flush` or `close`, and
//! [`BufferedMutator::take_failures`] lists every failed row.

use std::sync::mpsc::{Receiver, SyncSender};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;

use basalt_common::ops::Mutation;
use basalt_common::{Bytes, Error, Result, TableName};

use crate::{BatchOp, Client};

/// HBase's `hbase.client.write.buffer` default.
pub const DEFAULT_WRITE_BUFFER_SIZE: usize = 2 << 20;

/// What a mutation is taken to weigh in the buffer beyond its bytes (HBase counts heap sizes;
/// this keeps many tiny cells from making one huge batch).
const OVERHEAD_PER_CELL: usize = 32;

/// How a [`BufferedMutator`] buffers (HBase's `BufferedMutatorParams`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BufferedMutatorParams {
    /// Bytes buffered before they are sent.
    pub write_buffer_size: usize,
}

impl Default for BufferedMutatorParams {
    fn default() -> Self {
        BufferedMutatorParams {
            write_buffer_size: DEFAULT_WRITE_BUFFER_SIZE,
        }
    }
}

/// What the caller hands the sending thread.
enum Job {
    Send(Vec<BatchOp>),
    /// Answered once everything handed over before it is sent.
    Barrier(SyncSender<()>),
}

/// Rows whose mutations failed, with why, in the order they were found.
type Failures = Arc<Mutex<Vec<(Bytes, Error)>>>;

/// Buffered puts and deletes to one table; see the module documentation. Obtain one with
/// [`BufferedMutator::new`] over any [`Client`] (an embedded `Connection` or a remote one).
pub struct BufferedMutator {
    table: TableName,
    params: BufferedMutatorParams,
    buffer: Vec<BatchOp>,
    buffered_bytes: usize,
    jobs: Option<SyncSender<Job>>,
    sender: Option<JoinHandle<()>>,
    failures: Failures,
}

impl std::fmt::Debug for BufferedMutator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BufferedMutator")
            .field("table", &self.table)
            .field("params", &self.params)
            .field("buffered", &self.buffer.len())
            .field("buffered_bytes", &self.buffered_bytes)
            .finish_non_exhaustive()
    }
}

impl BufferedMutator {
    /// A mutator writing to `table` through `client`. The table is not checked here: a
    /// missing table fails the first batch sent.
    pub fn new(
        client: Arc<dyn Client>,
        table: TableName,
        params: BufferedMutatorParams,
    ) -> Result<Self> {
        if params.write_buffer_size == 0 {
            return Err(Error::InvalidArgument(
                "the write buffer size must be at least one byte".into(),
            ));
        }
        let failures = Failures::default();
        // A rendezvous channel: handing over a batch waits until the thread has taken the
        // previous one, so one batch is sent while the caller fills the next.
        let (jobs, receiver) = std::sync::mpsc::sync_channel(0);
        let sender = std::thread::Builder::new()
            .name(format!("buffered-mutator-{table}"))
            .spawn({
                let (table, failures) = (table.clone(), Arc::clone(&failures));
                move || send_batches(client.as_ref(), &table, &receiver, &failures)
            })
            .map_err(|e| Error::storage(format!("starting a buffered mutator's thread: {e}")))?;
        Ok(BufferedMutator {
            table,
            params,
            buffer: Vec::new(),
            buffered_bytes: 0,
            jobs: Some(jobs),
            sender: Some(sender),
            failures,
        })
    }

    /// The table written to.
    pub fn name(&self) -> &TableName {
        &self.table
    }

    /// How it buffers.
    pub fn params(&self) -> BufferedMutatorParams {
        self.params
    }

    /// Bytes buffered and not yet handed to the sending thread.
    pub fn buffered_bytes(&self) -> usize {
        self.buffered_bytes
    }

    /// Buffers a put or delete; sends the buffer once it is full. Fails with an earlier
    /// batch's failure (then see [`BufferedMutator::take_failures`]), or at once for a
    /// mutation that can never succeed (an empty row).
    pub fn mutate(&mut self, mutation: impl Into<Mutation>) -> Result<()> {
        self.check_failures()?;
        let mutation = mutation.into();
        if mutation.row().is_empty() {
            return Err(Error::EmptyRow);
        }
        self.buffered_bytes += weight(&mutation);
        self.buffer.push(mutation.into());
        if self.buffered_bytes >= self.params.write_buffer_size {
            self.hand_over()?;
        }
        Ok(())
    }

    /// Buffers each of `mutations` in turn (HBase's `mutate(List)`).
    pub fn mutate_all<M: Into<Mutation>>(
        &mut self,
        mutations: impl IntoIterator<Item = M>,
    ) -> Result<()> {
        mutations.into_iter().try_for_each(|m| self.mutate(m))
    }

    /// Sends everything buffered and waits until it is written; fails if any buffered
    /// mutation since the last report failed.
    pub fn flush(&mut self) -> Result<()> {
        self.hand_over()?;
        let (done, wait) = std::sync::mpsc::sync_channel(1);
        self.send(Job::Barrier(done))?;
        wait.recv().map_err(|_| sender_gone())?;
        self.check_failures()
    }

    /// Flushes, then stops the sending thread.
    pub fn close(mut self) -> Result<()> {
        let flushed = self.flush();
        self.stop();
        flushed
    }

    /// Every row whose buffered mutation failed since the last call, with its error (HBase's
    /// `RetriesExhaustedWithDetailsException` details). Taking them clears the failure that
    /// the next call would otherwise report.
    pub fn take_failures(&mut self) -> Vec<(Bytes, Error)> {
        std::mem::take(&mut *lock(&self.failures))
    }

    /// Hands the buffer to the sending thread (waiting while it sends the previous one).
    fn hand_over(&mut self) -> Result<()> {
        if self.buffer.is_empty() {
            return Ok(());
        }
        let batch = std::mem::take(&mut self.buffer);
        self.buffered_bytes = 0;
        self.send(Job::Send(batch))
    }

    fn send(&self, job: Job) -> Result<()> {
        self.jobs
            .as_ref()
            .ok_or_else(sender_gone)?
            .send(job)
            .map_err(|_| sender_gone())
    }

    /// The first failure not yet reported, as an error naming how many rows failed.
    fn check_failures(&self) -> Result<()> {
        let failures = lock(&self.failures);
        match failures.first() {
            None => Ok(()),
            Some((row, e)) => Err(Error::Refused(format!(
                "{} buffered mutation(s) to {} failed (take_failures lists them); the first, \
                 row {}: {e}",
                failures.len(),
                self.table,
                basalt_common::bytes_display::BinaryDisplay::new(row),
            ))),
        }
    }

    fn stop(&mut self) {
        // Closing the channel ends the thread's loop.
        self.jobs = None;
        if let Some(sender) = self.sender.take() {
            let _ = sender.join();
        }
    }
}

impl Drop for BufferedMutator {
    /// Sends what is still buffered; a failure then has nobody to tell, as in HBase when a
    /// mutator is not closed.
    fn drop(&mut self) {
        if self.jobs.is_some() {
            let _ = self.hand_over();
        }
        self.stop();
    }
}

/// The sending thread: each batch in turn, failures recorded by row.
fn send_batches(client: &dyn Client, table: &TableName, jobs: &Receiver<Job>, failures: &Failures) {
    while let Ok(job) = jobs.recv() {
        match job {
            Job::Send(batch) => {
                let results = client.batch(table, &batch);
                let failed: Vec<(Bytes, Error)> = batch
                    .iter()
                    .zip(results)
                    .filter_map(|(op, r)| r.err().map(|e| (op.row().clone(), e)))
                    .collect();
                if !failed.is_empty() {
                    lock(failures).extend(failed);
                }
            }
            Job::Barrier(done) => {
                let _ = done.send(());
            }
        }
    }
}

/// A mutation's weight in the buffer: its bytes and a fixed overhead per cell.
fn weight(m: &Mutation) -> usize {
    match m {
        Mutation::Put(p) => {
            p.row.len()
                + p.cells
                    .iter()
                    .map(|c| c.family.len() + c.qualifier.len() + c.value.len() + OVERHEAD_PER_CELL)
                    .sum::<usize>()
        }
        Mutation::Delete(d) => {
            d.row.len()
                + OVERHEAD_PER_CELL
                + d.entries
                    .iter()
                    .map(|e| e.family.len() + e.qualifier.len() + OVERHEAD_PER_CELL)
                    .sum::<usize>()
        }
    }
}

fn lock(failures: &Failures) -> std::sync::MutexGuard<'_, Vec<(Bytes, Error)>> {
    failures.lock().unwrap_or_else(PoisonError::into_inner)
}

fn sender_gone() -> Error {
    Error::storage("the buffered mutator's sending thread has stopped")
}

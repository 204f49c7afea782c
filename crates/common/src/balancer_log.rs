//! What the balancer decided on its recent runs (HBase's BalancerDecision and
//! BalancerRejection ring buffers, `get_balancer_decisions`, `get_balancer_rejections`): the
//! last [`CAPACITY`] of each, the oldest dropped first.

use std::collections::VecDeque;
use std::sync::{Mutex, PoisonError};

/// Records kept of each kind (HBase's `hbase.master.balancer.decision.buffer.size`, 250).
pub const CAPACITY: usize = 250;

/// A run that moved regions.
#[derive(Debug, Clone, PartialEq)]
pub struct Decision {
    pub initial_function_costs: String,
    pub final_function_costs: String,
    pub init_total_cost: f64,
    pub computed_total_cost: f64,
    pub computed_steps: u64,
    /// `region ENCODED from SERVER to SERVER`, one a move.
    pub region_plans: Vec<String>,
}

/// A run that found nothing to move, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rejection {
    pub reason: String,
    pub cost_func_info: Vec<String>,
}

/// The two ring buffers.
#[derive(Debug, Default)]
pub struct BalancerLog {
    decisions: Mutex<VecDeque<Decision>>,
    rejections: Mutex<VecDeque<Rejection>>,
}

fn push<T>(ring: &Mutex<VecDeque<T>>, item: T) {
    let mut ring = ring.lock().unwrap_or_else(PoisonError::into_inner);
    if ring.len() == CAPACITY {
        ring.pop_front();
    }
    ring.push_back(item);
}

fn newest<T: Clone>(ring: &Mutex<VecDeque<T>>, limit: usize) -> Vec<T> {
    let ring = ring.lock().unwrap_or_else(PoisonError::into_inner);
    ring.iter().rev().take(limit).cloned().collect()
}

impl BalancerLog {
    pub fn decided(&self, d: Decision) {
        push(&self.decisions, d);
    }

    pub fn rejected(&self, r: Rejection) {
        push(&self.rejections, r);
    }

    /// The newest `limit` decisions, newest first.
    pub fn decisions(&self, limit: usize) -> Vec<Decision> {
        newest(&self.decisions, limit)
    }

    /// The newest `limit` rejections, newest first.
    pub fn rejections(&self, limit: usize) -> Vec<Rejection> {
        newest(&self.rejections, limit)
    }
}

//! A master's procedures as `list_procedures` and `list_locks` show them (the record itself
//! is the master's `procedure_log`).

/// HBase's ProcedureState.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum State {
    /// Waiting for the lock.
    Waiting,
    Runnable,
    Success,
    Failed,
}

impl State {
    pub fn name(self) -> &'static str {
        match self {
            State::Waiting => "WAITING",
            State::Runnable => "RUNNABLE",
            State::Success => "SUCCESS",
            State::Failed => "FAILED",
        }
    }
}

/// What a procedure locks: HBase's LockedResourceType and the resource's name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Resource {
    Server(String),
    Namespace(String),
    Table(String),
    Region(String),
}

impl Resource {
    pub fn kind(&self) -> &'static str {
        match self {
            Resource::Server(_) => "SERVER",
            Resource::Namespace(_) => "NAMESPACE",
            Resource::Table(_) => "TABLE",
            Resource::Region(_) => "REGION",
        }
    }

    pub fn name(&self) -> &str {
        match self {
            Resource::Server(n)
            | Resource::Namespace(n)
            | Resource::Table(n)
            | Resource::Region(n) => n,
        }
    }
}

/// One procedure.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Procedure {
    pub id: u64,
    /// HBase's class name (`org.apache.hadoop.hbase.master.procedure.CreateTableProcedure`).
    pub class_name: String,
    pub owner: String,
    pub state: State,
    pub submitted_ms: i64,
    pub last_update_ms: i64,
    /// What it works on, as `key => value` pairs.
    pub parameters: Vec<(String, String)>,
    pub resource: Resource,
    /// Why it failed.
    pub error: Option<String>,
}

/// A lock a procedure holds, with the procedures waiting for it (`list_locks`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lock {
    pub resource: Resource,
    /// The procedure holding it (exclusively: Basalt takes no shared locks).
    pub owner: Procedure,
    pub waiting: Vec<Procedure>,
}

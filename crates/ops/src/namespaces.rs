//! Namespaces: their DDL (procedures with a nonce, needing global ADMIN) and the reads of
//! their descriptors and tables (open to all).

use basalt_common::{Error, NamespaceDescriptor, Result, TableName};
use basalt_proto::pb;
use basalt_proto::schema::{namespace, namespace_descriptor, parse_table_name};

use crate::declare::{calls, operations};
use crate::need;

operations! {
    /// Namespaces.
    area Namespaces, handler NamespaceHandler;
    /// Creates a namespace.
    CreateNamespace(pb::NamespaceRequest) -> pb::ProcedureResponse = create_namespace,
        need need::admin, nonce;
    /// Replaces a namespace's properties.
    ModifyNamespace(pb::NamespaceRequest) -> pb::ProcedureResponse = modify_namespace,
        need need::admin, nonce;
    /// Drops an empty namespace.
    DeleteNamespace(pb::NamespaceNameRequest) -> pb::ProcedureResponse = delete_namespace,
        need need::admin, nonce;
    /// A namespace's descriptor.
    GetNamespaceDescriptor(pb::NamespaceNameRequest) -> pb::GetNamespaceDescriptorResponse
        = get_namespace_descriptor, need need::anyone;
    /// Every namespace's descriptor.
    ListNamespaceDescriptors(pb::ListNamespaceDescriptorsRequest)
        -> pb::ListNamespaceDescriptorsResponse = list_namespace_descriptors, need need::anyone;
    /// Every namespace's name.
    ListNamespaces(pb::ListNamespacesRequest) -> pb::ListNamespacesResponse = list_namespaces,
        need need::anyone;
    /// The tables of a namespace.
    ListTableNamesByNamespace(pb::NamespaceNameRequest) -> pb::ListTableNamesByNamespaceResponse
        = list_table_names_by_namespace, need need::anyone;
}

/// A namespace call's errors name the namespace asked about.
fn namespaced<V>(asked: &str, out: Result<V>) -> Result<V> {
    out.map_err(|e| match e {
        Error::NamespaceNotFound(_) => Error::NamespaceNotFound(asked.to_owned()),
        Error::NamespaceExists(_) => Error::NamespaceExists(asked.to_owned()),
        other => other,
    })
}

fn named(name: &str) -> pb::NamespaceNameRequest {
    pb::NamespaceNameRequest {
        namespace_name: name.to_owned(),
        ..pb::NamespaceNameRequest::default()
    }
}

fn described(ns: &NamespaceDescriptor) -> pb::NamespaceRequest {
    pb::NamespaceRequest {
        namespace_descriptor: namespace(ns),
        ..pb::NamespaceRequest::default()
    }
}

calls! {
    /// Namespaces.
    NamespaceAdmin, AsyncNamespaceAdmin;

    /// Creates a namespace. Names are letters, digits and `_`.
    async fn create_namespace(c, ns: NamespaceDescriptor) -> Result<()> {
        let out = c.call::<CreateNamespace>(None, described(&ns)).await;
        namespaced(&ns.name, out).map(|_| ())
    }

    /// Replaces a namespace's properties.
    async fn modify_namespace(c, ns: NamespaceDescriptor) -> Result<()> {
        let out = c.call::<ModifyNamespace>(None, described(&ns)).await;
        namespaced(&ns.name, out).map(|_| ())
    }

    /// Drops an empty namespace (never `default` or `hbase`).
    async fn delete_namespace(c, name: &str) -> Result<()> {
        let out = c.call::<DeleteNamespace>(None, named(name)).await;
        namespaced(name, out).map(|_| ())
    }

    /// A namespace's descriptor.
    async fn namespace(c, name: &str) -> Result<NamespaceDescriptor> {
        let out = c.call::<GetNamespaceDescriptor>(None, named(name)).await;
        namespaced(name, out).map(|r| namespace_descriptor(&r.namespace_descriptor))
    }

    /// Every namespace, `default` and `hbase` among them.
    async fn namespaces(c) -> Result<Vec<NamespaceDescriptor>> {
        let request = pb::ListNamespaceDescriptorsRequest {};
        let out = c.call::<ListNamespaceDescriptors>(None, request).await?;
        Ok(out.namespace_descriptor.iter().map(namespace_descriptor).collect())
    }

    /// The tables of a namespace.
    async fn list_table_names_by_namespace(c, name: &str) -> Result<Vec<TableName>> {
        let out = c.call::<ListTableNamesByNamespace>(None, named(name)).await;
        namespaced(name, out)?
            .table_name
            .iter()
            .map(|t| parse_table_name(t).map_err(|e| Error::corrupt(e.to_string())))
            .collect()
    }
}

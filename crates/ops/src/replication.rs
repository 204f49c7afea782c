//! Replication peers (HBase's `add_peer`, `remove_peer`, `enable_peer`, ...): every call
//! needs global ADMIN, reads too, as HBase's AccessController has it.

use basalt_common::Result;
use basalt_common::replication::{PeerConfig, PeerDescription};
use basalt_proto::pb;
use basalt_proto::replication;

use crate::declare::{calls, operations};
use crate::need;

operations! {
    /// The master's replication peers.
    area Replication, handler ReplicationHandler;
    /// Adds a peer, shipping at once if its state says enabled.
    AddReplicationPeer(pb::AddReplicationPeerRequest) -> pb::AddReplicationPeerResponse
        = add_replication_peer, need need::admin;
    /// Removes a peer.
    RemoveReplicationPeer(pb::RemoveReplicationPeerRequest) -> pb::RemoveReplicationPeerResponse
        = remove_replication_peer, need need::admin;
    /// Starts shipping to a peer.
    EnableReplicationPeer(pb::EnableReplicationPeerRequest) -> pb::EnableReplicationPeerResponse
        = enable_replication_peer, need need::admin;
    /// Stops shipping to a peer; edits wait in the WAL.
    DisableReplicationPeer(pb::DisableReplicationPeerRequest)
        -> pb::DisableReplicationPeerResponse = disable_replication_peer, need need::admin;
    /// Replaces a peer's config (its cluster key cannot change).
    UpdateReplicationPeerConfig(pb::UpdateReplicationPeerConfigRequest)
        -> pb::UpdateReplicationPeerConfigResponse
        = update_replication_peer_config, need need::admin;
    /// A peer's config.
    GetReplicationPeerConfig(pb::GetReplicationPeerConfigRequest)
        -> pb::GetReplicationPeerConfigResponse = get_replication_peer_config, need need::admin;
    /// The peers whose ids match a regex, with their states.
    ListReplicationPeers(pb::ListReplicationPeersRequest) -> pb::ListReplicationPeersResponse
        = list_replication_peers, need need::admin;
    /// Whether a peer is shipped to.
    IsReplicationPeerEnabled(pb::GetReplicationPeerStateRequest)
        -> pb::GetReplicationPeerStateResponse = is_replication_peer_enabled, need need::admin;
    /// Switches peer changes on or off.
    ReplicationPeerModificationSwitch(pb::ReplicationPeerModificationSwitchRequest)
        -> pb::ReplicationPeerModificationSwitchResponse
        = replication_peer_modification_switch, need need::admin;
    /// Whether peers may be changed.
    IsReplicationPeerModificationEnabled(pb::IsReplicationPeerModificationEnabledRequest)
        -> pb::IsReplicationPeerModificationEnabledResponse
        = is_replication_peer_modification_enabled, need need::admin;
}

/// `text` as a regex that matches only itself.
fn regex_quoted(text: &str) -> String {
    text.chars()
        .flat_map(|c| {
            let special = "\\.+*?()|[]{}^$".contains(c);
            special.then_some('\\').into_iter().chain([c])
        })
        .collect()
}

calls! {
    /// Replication peers.
    ReplicationAdmin, AsyncReplicationAdmin;

    /// Adds replication peer `id`, shipping at once if `enabled` (HBase's `add_peer`).
    async fn add_peer(c, id: &str, config: &PeerConfig, enabled: bool) -> Result<()> {
        let request = pb::AddReplicationPeerRequest {
            peer_id: id.to_owned(),
            peer_config: replication::pb_peer(config),
            peer_state: replication::pb_state(enabled),
        };
        c.call::<AddReplicationPeer>(None, request).await?;
        Ok(())
    }

    /// Removes replication peer `id`.
    async fn remove_peer(c, id: &str) -> Result<()> {
        let request = pb::RemoveReplicationPeerRequest {
            peer_id: id.to_owned(),
        };
        c.call::<RemoveReplicationPeer>(None, request).await?;
        Ok(())
    }

    /// Starts (`on`) or stops shipping to peer `id`; edits wait in the WAL while it is off.
    async fn set_peer_enabled(c, id: &str, on: bool) -> Result<()> {
        let peer_id = id.to_owned();
        if on {
            c.call::<EnableReplicationPeer>(None, pb::EnableReplicationPeerRequest { peer_id })
                .await?;
        } else {
            c.call::<DisableReplicationPeer>(None, pb::DisableReplicationPeerRequest { peer_id })
                .await?;
        }
        Ok(())
    }

    /// Replaces peer `id`'s config (its cluster key cannot change).
    async fn update_peer_config(c, id: &str, config: &PeerConfig) -> Result<()> {
        let request = pb::UpdateReplicationPeerConfigRequest {
            peer_id: id.to_owned(),
            peer_config: replication::pb_peer(config),
        };
        c.call::<UpdateReplicationPeerConfig>(None, request).await?;
        Ok(())
    }

    /// Every peer, by id.
    async fn list_peers(c) -> Result<Vec<PeerDescription>> {
        let r = c
            .call::<ListReplicationPeers>(None, pb::ListReplicationPeersRequest { regex: None })
            .await?;
        r.peer_desc.iter().map(replication::description).collect()
    }

    /// Peer `id`: its state and config (GetReplicationPeerConfig, and ListReplicationPeers for
    /// its state, which that call does not carry).
    async fn peer(c, id: &str) -> Result<PeerDescription> {
        let request = pb::GetReplicationPeerConfigRequest {
            peer_id: id.to_owned(),
        };
        let r = c.call::<GetReplicationPeerConfig>(None, request).await?;
        let listed = pb::ListReplicationPeersRequest {
            regex: Some(regex_quoted(id)),
        };
        let listed = c.call::<ListReplicationPeers>(None, listed).await?;
        Ok(PeerDescription {
            id: r.peer_id,
            enabled: listed
                .peer_desc
                .first()
                .is_none_or(|d| d.state.state == pb::replication_state::State::Enabled as i32),
            config: replication::peer(&r.peer_config)?,
        })
    }

    /// Switches peer changes on or off (HBase's `peer_modification_switch`); returns whether
    /// they were on.
    async fn peer_modification_switch(c, on: bool) -> Result<bool> {
        let request = pb::ReplicationPeerModificationSwitchRequest { on };
        let r = c.call::<ReplicationPeerModificationSwitch>(None, request).await?;
        Ok(r.previous_value)
    }

    /// Whether peers may be added, changed and removed.
    async fn peer_modification_enabled(c) -> Result<bool> {
        let request = pb::IsReplicationPeerModificationEnabledRequest {};
        let r = c.call::<IsReplicationPeerModificationEnabled>(None, request).await?;
        Ok(r.enabled)
    }
}

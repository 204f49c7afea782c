//! Replication peers (`crate::peers`), as MasterService serves them.

use basalt_common::{Error, Result};
use basalt_ops::replication::ReplicationHandler;
use basalt_proto::pb;
use basalt_proto::replication;

use super::MasterService;

fn enabled(state: &pb::ReplicationState) -> bool {
    state.state == pb::replication_state::State::Enabled as i32
}

impl ReplicationHandler for MasterService {
    fn add_replication_peer(
        &self,
        r: pb::AddReplicationPeerRequest,
    ) -> Result<pb::AddReplicationPeerResponse> {
        let config = replication::peer(&r.peer_config)?;
        crate::peers::add(&self.master, &r.peer_id, config, enabled(&r.peer_state))?;
        Ok(pb::AddReplicationPeerResponse {
            proc_id: Some(self.procedure()),
        })
    }

    fn remove_replication_peer(
        &self,
        r: pb::RemoveReplicationPeerRequest,
    ) -> Result<pb::RemoveReplicationPeerResponse> {
        crate::peers::remove(&self.master, &r.peer_id)?;
        Ok(pb::RemoveReplicationPeerResponse {
            proc_id: Some(self.procedure()),
        })
    }

    fn enable_replication_peer(
        &self,
        r: pb::EnableReplicationPeerRequest,
    ) -> Result<pb::EnableReplicationPeerResponse> {
        crate::peers::set_enabled(&self.master, &r.peer_id, true)?;
        Ok(pb::EnableReplicationPeerResponse {
            proc_id: Some(self.procedure()),
        })
    }

    fn disable_replication_peer(
        &self,
        r: pb::DisableReplicationPeerRequest,
    ) -> Result<pb::DisableReplicationPeerResponse> {
        crate::peers::set_enabled(&self.master, &r.peer_id, false)?;
        Ok(pb::DisableReplicationPeerResponse {
            proc_id: Some(self.procedure()),
        })
    }

    fn update_replication_peer_config(
        &self,
        r: pb::UpdateReplicationPeerConfigRequest,
    ) -> Result<pb::UpdateReplicationPeerConfigResponse> {
        let config = replication::peer(&r.peer_config)?;
        crate::peers::update(&self.master, &r.peer_id, config)?;
        Ok(pb::UpdateReplicationPeerConfigResponse {
            proc_id: Some(self.procedure()),
        })
    }

    fn get_replication_peer_config(
        &self,
        r: pb::GetReplicationPeerConfigRequest,
    ) -> Result<pb::GetReplicationPeerConfigResponse> {
        let peer = crate::peers::get(&self.master, &r.peer_id)?;
        Ok(pb::GetReplicationPeerConfigResponse {
            peer_id: peer.id,
            peer_config: replication::pb_peer(&peer.config),
        })
    }

    fn list_replication_peers(
        &self,
        r: pb::ListReplicationPeersRequest,
    ) -> Result<pb::ListReplicationPeersResponse> {
        let pattern = r.regex.as_deref().unwrap_or(".*");
        let re = regex::Regex::new(&format!("^(?:{pattern})$"))
            .map_err(|e| Error::Refused(format!("regex {pattern:?}: {e}")))?;
        let peers = crate::peers::list(&self.master)?;
        Ok(pb::ListReplicationPeersResponse {
            peer_desc: peers
                .iter()
                .filter(|p| re.is_match(&p.id))
                .map(replication::pb_description)
                .collect(),
        })
    }

    fn replication_peer_modification_switch(
        &self,
        r: pb::ReplicationPeerModificationSwitchRequest,
    ) -> Result<pb::ReplicationPeerModificationSwitchResponse> {
        Ok(pb::ReplicationPeerModificationSwitchResponse {
            previous_value: crate::peers::set_modification_enabled(&self.master, r.on)?,
        })
    }

    fn is_replication_peer_enabled(
        &self,
        r: pb::GetReplicationPeerStateRequest,
    ) -> Result<pb::GetReplicationPeerStateResponse> {
        Ok(pb::GetReplicationPeerStateResponse {
            is_enabled: crate::peers::get(&self.master, &r.peer_id)?.enabled,
        })
    }

    fn is_replication_peer_modification_enabled(
        &self,
        _: pb::IsReplicationPeerModificationEnabledRequest,
    ) -> Result<pb::IsReplicationPeerModificationEnabledResponse> {
        Ok(pb::IsReplicationPeerModificationEnabledResponse {
            enabled: crate::peers::modification_enabled(&self.master)?,
        })
    }
}

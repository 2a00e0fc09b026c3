//! Requests and push configs.

use super::*;

impl ToV1 for MessageSendParams {
    type V1 = v1::SendMessageRequest;
    fn v1(&self, cx: &mut Cx) -> Result<v1::SendMessageRequest, ConvertError> {
        let configuration = match &self.configuration {
            None => None,
            Some(c) => Some(cx.at("configuration", |cx| -> Result<_, ConvertError> {
                let push = match &c.push_notification_config {
                    Some(p) => Some(cx.at("pushNotificationConfig", |cx| p.v1(cx))?),
                    None => None,
                };
                Ok(v1::SendMessageConfiguration {
                    accepted_output_modes: c.accepted_output_modes.clone().unwrap_or_default(),
                    task_push_notification_config: push,
                    // v0.3: 0 means "no limit", which is v1.0's "unset".
                    history_length: c.history_length.filter(|n| *n != 0),
                    return_immediately: c.blocking == Some(false),
                })
            })?),
        };
        Ok(v1::SendMessageRequest {
            tenant: String::new(),
            message: Some(cx.at("message", |cx| self.message.v1(cx))?),
            configuration,
            metadata: meta_v1(&self.metadata),
        })
    }
}

fn history_length_v03(cx: &mut Cx, h: Option<i32>) -> Option<i32> {
    match h {
        Some(0) => {
            cx.loss(LossKind::HistoryLengthZero, "historyLength");
            None
        }
        other => other,
    }
}

fn tenant_dropped(cx: &mut Cx, tenant: &str) {
    if !tenant.is_empty() {
        cx.loss(LossKind::Dropped, "tenant");
    }
}

impl ToV03 for v1::SendMessageRequest {
    type V03 = MessageSendParams;
    fn v03(&self, cx: &mut Cx) -> Result<MessageSendParams, ConvertError> {
        tenant_dropped(cx, &self.tenant);
        let message = self.message.as_ref().ok_or_else(|| cx.missing("message"))?;
        let message = cx.at("message", |cx| message.v03(cx))?;
        let configuration = match &self.configuration {
            None => None,
            Some(c) => Some(cx.at("configuration", |cx| -> Result<_, ConvertError> {
                let push = match &c.task_push_notification_config {
                    Some(p) => Some(cx.at("taskPushNotificationConfig", |cx| -> Result<_, ConvertError> {
                        let c = p.v03(cx)?;
                        // v0.3's send configuration carries the bare config: no task id.
                        if !p.task_id.is_empty() {
                            cx.loss(LossKind::Dropped, "taskId");
                        }
                        Ok(c.push_notification_config)
                    })?),
                    None => None,
                };
                Ok(MessageSendConfiguration {
                    accepted_output_modes: opt_list(&c.accepted_output_modes),
                    blocking: Some(!c.return_immediately),
                    history_length: history_length_v03(cx, c.history_length),
                    push_notification_config: push,
                })
            })?),
        };
        Ok(MessageSendParams { message, configuration, metadata: meta_v03(&self.metadata) })
    }
}

impl ToV1 for TaskQueryParams {
    type V1 = v1::GetTaskRequest;
    fn v1(&self, cx: &mut Cx) -> Result<v1::GetTaskRequest, ConvertError> {
        if self.metadata.is_some() {
            cx.loss(LossKind::Dropped, "metadata");
        }
        Ok(v1::GetTaskRequest { tenant: String::new(), id: self.id.clone(), history_length: self.history_length.filter(|n| *n != 0) })
    }
}

impl ToV03 for v1::GetTaskRequest {
    type V03 = TaskQueryParams;
    fn v03(&self, cx: &mut Cx) -> Result<TaskQueryParams, ConvertError> {
        tenant_dropped(cx, &self.tenant);
        Ok(TaskQueryParams { id: self.id.clone(), history_length: history_length_v03(cx, self.history_length), metadata: None })
    }
}

impl ToV1 for TaskIdParams {
    type V1 = v1::CancelTaskRequest;
    fn v1(&self, _cx: &mut Cx) -> Result<v1::CancelTaskRequest, ConvertError> {
        Ok(v1::CancelTaskRequest { tenant: String::new(), id: self.id.clone(), metadata: meta_v1(&self.metadata) })
    }
}

impl TaskIdParams {
    /// Translates `tasks/resubscribe` params to v1.0 `SubscribeToTaskRequest` (which has no
    /// `metadata`: it is reported as dropped).
    pub fn to_v1_subscribe(&self) -> Converted<v1::SubscribeToTaskRequest> {
        let mut losses = Vec::new();
        if self.metadata.is_some() {
            losses.push(Loss { kind: LossKind::Dropped, path: String::from("metadata") });
        }
        Converted { value: v1::SubscribeToTaskRequest { tenant: String::new(), id: self.id.clone() }, losses }
    }
}

impl ToV03 for v1::CancelTaskRequest {
    type V03 = TaskIdParams;
    fn v03(&self, cx: &mut Cx) -> Result<TaskIdParams, ConvertError> {
        tenant_dropped(cx, &self.tenant);
        Ok(TaskIdParams { id: self.id.clone(), metadata: meta_v03(&self.metadata) })
    }
}

impl ToV03 for v1::SubscribeToTaskRequest {
    type V03 = TaskIdParams;
    fn v03(&self, cx: &mut Cx) -> Result<TaskIdParams, ConvertError> {
        tenant_dropped(cx, &self.tenant);
        Ok(TaskIdParams { id: self.id.clone(), metadata: None })
    }
}

// ---------------------------------------------------------------- push configs

impl ToV1 for PushNotificationConfig {
    type V1 = v1::TaskPushNotificationConfig;
    fn v1(&self, cx: &mut Cx) -> Result<v1::TaskPushNotificationConfig, ConvertError> {
        let authentication = match &self.authentication {
            None => None,
            Some(a) => match a.schemes.split_first() {
                None => {
                    cx.loss(LossKind::AuthWithoutScheme, "authentication");
                    None
                }
                Some((first, rest)) => {
                    if !rest.is_empty() {
                        cx.loss(LossKind::ExtraAuthSchemes, "authentication.schemes");
                    }
                    Some(v1::AuthenticationInfo { scheme: first.clone(), credentials: a.credentials.clone().unwrap_or_default() })
                }
            },
        };
        Ok(v1::TaskPushNotificationConfig {
            tenant: String::new(),
            id: self.id.clone().unwrap_or_default(),
            task_id: String::new(),
            url: self.url.clone(),
            token: self.token.clone().unwrap_or_default(),
            authentication,
        })
    }
}

impl ToV1 for TaskPushNotificationConfig {
    type V1 = v1::TaskPushNotificationConfig;
    fn v1(&self, cx: &mut Cx) -> Result<v1::TaskPushNotificationConfig, ConvertError> {
        let mut c = cx.at("pushNotificationConfig", |cx| self.push_notification_config.v1(cx))?;
        c.task_id = self.task_id.clone();
        Ok(c)
    }
}

impl ToV03 for v1::TaskPushNotificationConfig {
    type V03 = TaskPushNotificationConfig;
    fn v03(&self, cx: &mut Cx) -> Result<TaskPushNotificationConfig, ConvertError> {
        tenant_dropped(cx, &self.tenant);
        Ok(TaskPushNotificationConfig {
            task_id: self.task_id.clone(),
            push_notification_config: PushNotificationConfig {
                id: opt(&self.id),
                url: self.url.clone(),
                token: opt(&self.token),
                authentication: self.authentication.as_ref().map(|a| PushNotificationAuthenticationInfo {
                    schemes: alloc::vec![a.scheme.clone()],
                    credentials: opt(&a.credentials),
                }),
            },
        })
    }
}

impl ToV1 for GetTaskPushNotificationConfigParams {
    type V1 = v1::GetTaskPushNotificationConfigRequest;
    fn v1(&self, cx: &mut Cx) -> Result<v1::GetTaskPushNotificationConfigRequest, ConvertError> {
        let id = match &self.push_notification_config_id {
            Some(id) => id.clone(),
            None => {
                cx.loss(LossKind::DefaultedConfigId, "pushNotificationConfigId");
                self.id.clone()
            }
        };
        if self.metadata.is_some() {
            cx.loss(LossKind::Dropped, "metadata");
        }
        Ok(v1::GetTaskPushNotificationConfigRequest { tenant: String::new(), task_id: self.id.clone(), id })
    }
}

impl ToV03 for v1::GetTaskPushNotificationConfigRequest {
    type V03 = GetTaskPushNotificationConfigParams;
    fn v03(&self, cx: &mut Cx) -> Result<GetTaskPushNotificationConfigParams, ConvertError> {
        tenant_dropped(cx, &self.tenant);
        Ok(GetTaskPushNotificationConfigParams { id: self.task_id.clone(), push_notification_config_id: opt(&self.id), metadata: None })
    }
}

impl ToV1 for ListTaskPushNotificationConfigParams {
    type V1 = v1::ListTaskPushNotificationConfigsRequest;
    fn v1(&self, cx: &mut Cx) -> Result<v1::ListTaskPushNotificationConfigsRequest, ConvertError> {
        if self.metadata.is_some() {
            cx.loss(LossKind::Dropped, "metadata");
        }
        Ok(v1::ListTaskPushNotificationConfigsRequest { task_id: self.id.clone(), ..Default::default() })
    }
}

impl ToV03 for v1::ListTaskPushNotificationConfigsRequest {
    type V03 = ListTaskPushNotificationConfigParams;
    fn v03(&self, cx: &mut Cx) -> Result<ListTaskPushNotificationConfigParams, ConvertError> {
        if self.page_size != 0 {
            cx.loss(LossKind::Dropped, "pageSize");
        }
        if !self.page_token.is_empty() {
            cx.loss(LossKind::Dropped, "pageToken");
        }
        tenant_dropped(cx, &self.tenant);
        Ok(ListTaskPushNotificationConfigParams { id: self.task_id.clone(), metadata: None })
    }
}

impl ToV1 for DeleteTaskPushNotificationConfigParams {
    type V1 = v1::DeleteTaskPushNotificationConfigRequest;
    fn v1(&self, cx: &mut Cx) -> Result<v1::DeleteTaskPushNotificationConfigRequest, ConvertError> {
        if self.metadata.is_some() {
            cx.loss(LossKind::Dropped, "metadata");
        }
        Ok(v1::DeleteTaskPushNotificationConfigRequest {
            tenant: String::new(),
            task_id: self.id.clone(),
            id: self.push_notification_config_id.clone(),
        })
    }
}

impl ToV03 for v1::DeleteTaskPushNotificationConfigRequest {
    type V03 = DeleteTaskPushNotificationConfigParams;
    fn v03(&self, cx: &mut Cx) -> Result<DeleteTaskPushNotificationConfigParams, ConvertError> {
        tenant_dropped(cx, &self.tenant);
        Ok(DeleteTaskPushNotificationConfigParams {
            id: self.task_id.clone(),
            push_notification_config_id: self.id.clone(),
            metadata: None,
        })
    }
}

/// The result of `tasks/pushNotificationConfig/list` (a bare array in v0.3).
impl ToV1 for Vec<TaskPushNotificationConfig> {
    type V1 = v1::ListTaskPushNotificationConfigsResponse;
    fn v1(&self, cx: &mut Cx) -> Result<v1::ListTaskPushNotificationConfigsResponse, ConvertError> {
        let configs = self.iter().enumerate().map(|(i, c)| cx.idx(i, |cx| c.v1(cx))).collect::<Result<_, _>>()?;
        Ok(v1::ListTaskPushNotificationConfigsResponse { configs, next_page_token: String::new() })
    }
}

impl ToV03 for v1::ListTaskPushNotificationConfigsResponse {
    type V03 = Vec<TaskPushNotificationConfig>;
    fn v03(&self, cx: &mut Cx) -> Result<Vec<TaskPushNotificationConfig>, ConvertError> {
        let configs = cx.list("configs", &self.configs, |cx, c| c.v03(cx))?;
        if !self.next_page_token.is_empty() {
            cx.loss(LossKind::Dropped, "nextPageToken");
        }
        Ok(configs)
    }
}

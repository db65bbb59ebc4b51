export default {
  app: { title: 'Agent 对话', chat: '对话', models: '模型', skills: '技能', language: '语言', renderError: '页面的这一部分显示出错：{message}', menu: '会话列表', closeMenu: '关闭会话列表', theme: '主题', themeSystem: '跟随系统', themeLight: '浅色', themeDark: '深色', skip: '跳到对话', loadFailed: '无法加载此页面：服务可能在此标签页打开后已更新。', reload: '重新加载' },
  service: { agent: '智能体服务暂时没有响应。恢复后即可发送新问题，已保存的内容不会丢失。', database: '服务器暂时无法访问数据库。', server: '暂时无法连接到服务器。' },
  auth: { title: '访问令牌', prompt: '服务器需要访问令牌。', placeholder: '令牌', submit: '继续', cancel: '取消' },
  sessions: {
    new: '新建会话', search: '搜索标题和消息', untitled: '新会话', archive: '归档', unarchive: '恢复',
    delete: '删除', deleteConfirm: '删除“{title}”及其全部消息？', rename: '重命名',
    running: '运行中', waiting: '等待你的回答', empty: '还没有会话', archived: '已归档',
    showArchived: '显示已归档', loadMore: '加载更多', list: '会话列表',
    actions: '会话操作'
  },
  chat: {
    toolsets: '工具：{list}', noToolsets: '无', toolsetsHint: 'Agent 可用的工具集（AGENTCHAT_AGENT_TOOLSETS）',
    empty: '向 Agent 提问吧。', pick: '在左侧选择一个会话，或新建会话。',
    placeholder: '输入问题…（Enter 发送，Shift+Enter 换行）', send: '发送', steer: '引导', steerHint: '发给正在运行的 Agent：它在当前步骤之后读取，不会中断', stop: '停止',
    exportMd: '导出 Markdown', exportJson: '导出 JSON', exportMdAll: 'Markdown（全部版本）', exportJsonAll: 'JSON（全部版本）', export: '导出', reset: '重置会话',
    resetConfirm: '让 Agent 重新开始？历史消息仍保留在分隔条上方。', memory: '记忆',
    otherTab: '该会话正在其他标签页运行。', busy: '该会话的回复仍在运行。',
    loadOlder: '加载更早的消息', loading: '加载中…', copy: '复制', copied: '已复制',
    edit: '编辑', regenerate: '重新生成', retry: '重试', save: '保存并重发', cancel: '取消',
    failed: '回复失败', stopped: '已停止',
    interrupted: '已中断', unansweredHint: '这个问题还没有回答。点击重试重新发送。', allowedForChat: '本对话已允许', takeBack: '撤回', interruptedHint: '回复过程中服务器重启了；已保留目前的文字。可点击重试重新提问。', prevVersion: '上一版', nextVersion: '下一版',
    version: '第 {index} / {count} 版', you: '你', assistant: 'Agent', resetDivider: '会话已重置 —— Agent 从这里重新开始',
    summaryDivider: '更早的消息已压缩为摘要', compacted: '上下文已压缩',
    stopRequested: '正在停止…', model: '模型', skill: '技能', defaultModel: '默认模型', noSkill: '不使用技能',
    placeholderShort: '输入问题…', jumpToLatest: '跳到最新', notFound: '该会话不存在', notFoundHint: '它可能已被删除。请在左侧选择其他会话，或新建会话。', startNew: '新建会话', demoModel: '当前会话使用离线演示模型：它只回放预设回复，并不是真正的大模型。', demoModelAction: '添加真实模型', defaultModelNamed: '默认：{name}', stopHint: '停止（Esc）', copyCode: '复制代码', blockedImage: '未加载外部网站的图片：{src}', demoTag: '演示', more: '更多'
  },
  thinking: {
    title: '思考过程', steered: '你的引导：{text}', running: '思考中…', thought: '思考了 {duration}', worked: '用时 {duration}', toolCount: '{n} 次工具调用', questionCount: '{n} 个问题', seconds: '{s} 秒', minutes: '{m} 分 {s} 秒', step: '第 {n} 步', duration: '{s} 秒',
    stream: '思考流', tools: '工具调用', currentTool: '当前工具', noResult: '运行中…',
    args: '参数', result: '结果', todos: '待办清单', reconnecting: '重连中…', polling: '连接断开 —— 正在轮询更新',
    clarify: 'Agent 提问', answerPlaceholder: '你的回答', submit: '回答', answered: '已回答：{answer}', expand: '展开思考过程', collapse: '收起',
    asked: 'Agent 提问', yourAnswer: '你的回答', showMore: '显示全部（{count} 行）', showLess: '收起', items: '{n} 项', keys: '{n} 个字段'
  },
  todo: { pending: '待办', in_progress: '进行中', completed: '已完成', cancelled: '已取消' },
  memory: {
    title: '记忆', longTerm: '长期记忆', scope: 'Agent 的记忆，所有对话共享：修改从每个对话的下一次回答起生效。', memoryFile: 'Agent 笔记（MEMORY.md）', userFile: '关于你（USER.md）',
    save: '保存', saved: '记忆已保存', shortTerm: '最近工具调用', recentHint: '最近几轮回答中的工具调用，最新的在前', refresh: '刷新', noTools: '还没有工具调用', toolError: '出错', noResult: '无结果', arguments: '参数', result: '结果', trimmed: '已截断；共 {chars} 个字符', history: '压缩历史', noHistory: '尚未压缩', stats: '会话统计',
    unavailable: '无法读取记忆：{message}', chars: '{chars} / {limit} 字符',
    statsLabels: { messages: '消息数', activeBranchMessages: '当前分支消息数', compressions: '压缩次数', lastCompressionAt: '最近压缩时间', runs: '回复次数', toolCalls: '工具调用次数', context: '上下文窗口（最近回答后）',
      usage: { turns: '有用量的回答', promptTokens: '输入 Token', completionTokens: '输出 Token', reasoningTokens: '推理 Token', totalTokens: '总 Token', cacheReadTokens: '缓存读取 Token', cacheWriteTokens: '缓存写入 Token', summaryPromptTokens: '摘要输入 Token', summaryCompletionTokens: '摘要输出 Token', estimatedPromptTokens: '中断尝试的输入 Token（估算）', estimatedCompletionTokens: '中断尝试的输出 Token（估算）', apiCalls: '模型调用次数' } }
  },
  usage: {
    prompt: '输入 {n}', completion: '输出 {n}', reasoning: '推理 {n}', summary: '摘要 {n}', calls: '{n} 次调用',
    hint: '本回答使用的 token（按提供方报告；包含本轮所有模型调用：工具轮次、重试、上下文压缩摘要）',
    context: '上下文', contextHint: '最近一次回答后模型窗口中的 token 数 / 上下文长度；约 75% 时 hermes 会压缩较早的对话',
    compactionNear: '即将压缩', total: '已用 token', window: '上下文窗口',
  },
  models: {
    options: '选项', maxOutputTokens: '最大输出 token', temperature: '温度', reasoningEffort: '推理强度',
    thinking: '扩展思考（强度）', fallback: '备用模型', noFallback: '无', providerDefault: '提供方默认',
    effort: { none: '关闭', minimal: '最低', low: '低', medium: '中', high: '高', xhigh: '极高' },
    title: '模型', add: '添加模型', edit: '编辑模型', name: '名称', provider: '提供方', baseUrl: 'Base URL',
    modelName: '模型名', contextLength: '上下文长度', isDefault: '默认', apiKey: 'API Key',
    apiKeyKeep: '留空则保留已存的 Key', apiKeyCleared: '已存的 Key 将被删除：它不会发往其他主机。请填写新主机的 Key。', apiKeySet: '已保存（…{last4}）', apiKeyNone: '无', builtin: '内置',
    test: '测试', testOk: '模型已响应（{ms} 毫秒）', testFailed: '模型未响应：{error}', delete: '删除', deleteConfirm: '删除模型“{name}”？', save: '保存', cancel: '取消', actions: '操作', saved: '已保存',
  },
  skills: { title: '技能', empty: '尚未安装技能', pick: '选择一个技能查看内容。', broken: '无法读取该技能：{error}', agentMade: '由智能体创建' },
  errors: {
    details: '详情', rateLimited: '模型繁忙（请求过多）。请等一分钟后点击“重试”。',
    auth: '模型拒绝了 API Key，请在“模型”页检查。', timeout: '模型响应超时，请点击“重试”。',
    unreachable: '无法连接模型，请在“模型”页检查 Base URL。', server: '模型服务出错（{status}），请稍后再试。',
    context: '对话超出该模型的上下文长度。请重置会话或换用上下文更长的模型。', generic: 'Agent 未能完成这条回复。',
    tooManyRequests: '请求过多，请稍等片刻再试。', network: '无法连接服务器，请检查网络后重试。',
    sessionNotFound: '该会话不存在（可能已被删除）。',
  },
  common: { confirm: '确定', cancel: '取消', yes: '是', no: '否', close: '关闭' },
}

import { createRouter, createWebHistory } from 'vue-router'
import { isChunkLoadError, pageLoadFailed, reloadForNewBuild } from '@/lib/browser/staleBuild'

export const router = createRouter({
  history: createWebHistory(),
  routes: [
    { path: '/', redirect: '/chat' },
    { path: '/chat/:sessionId(\\d+)?', name: 'chat', component: () => import('./views/chat/ChatPage.vue') },
    { path: '/models', name: 'models', component: () => import('./views/models/ModelsPage.vue') },
    { path: '/skills', name: 'skills', component: () => import('./views/skills/SkillsPage.vue') },
    { path: '/tools', name: 'tools', component: () => import('./views/tools/ToolsPage.vue') },
    { path: '/:pathMatch(.*)*', redirect: '/chat' },
  ],
})

router.onError((err, to) => {
  if (isChunkLoadError(err)) reloadForNewBuild(to.fullPath)
})

router.afterEach((_to, _from, failure) => {
  if (!failure) pageLoadFailed.value = false
})

import { createRouter, createWebHistory } from 'vue-router'
import { isChunkLoadError, pageLoadFailed, reloadForNewBuild } from '@/lib/browser/staleBuild'
import { redirectFor } from '@/lib/accounts/account'
import { loadAccount } from '@/lib/accounts/session'

declare module 'vue-router' {
  interface RouteMeta {
    /** Open without signing in (with accounts): sign-in, sign-up, an invitation. */
    public?: boolean
    /** Administrators only (with accounts). */
    admin?: boolean
  }
}

export const router = createRouter({
  history: createWebHistory(),
  routes: [
    { path: '/', redirect: '/chat' },
    { path: '/chat/:sessionId(\\d+)?', name: 'chat', component: () => import('./views/chat/ChatPage.vue') },
    { path: '/models', name: 'models', component: () => import('./views/models/ModelsPage.vue') },
    { path: '/skills', name: 'skills', component: () => import('./views/skills/SkillsPage.vue') },
    { path: '/tools', name: 'tools', component: () => import('./views/tools/ToolsPage.vue'), meta: { admin: true } },
    { path: '/admin', name: 'admin', component: () => import('./views/admin/AdminPage.vue'), meta: { admin: true } },
    { path: '/signin', name: 'signin', component: () => import('./views/account/SignInPage.vue'), meta: { public: true } },
    { path: '/signup', name: 'signup', component: () => import('./views/account/SignUpPage.vue'), meta: { public: true } },
    { path: '/invite/:token', name: 'invite', component: () => import('./views/account/InvitePage.vue'), meta: { public: true } },
    { path: '/:pathMatch(.*)*', redirect: '/chat' },
  ],
})

// With accounts: the sign-in page first, the Admin and Tools pages for administrators only.
router.beforeEach(async (to) => {
  await loadAccount()
  return redirectFor(to) ?? true
})

router.onError((err, to) => {
  if (isChunkLoadError(err)) reloadForNewBuild(to.fullPath)
})

router.afterEach((_to, _from, failure) => {
  if (!failure) pageLoadFailed.value = false
})

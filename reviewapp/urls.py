from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path

from reviewapp.web.views import (
    accounts,
    answers,
    bulk,
    golden,
    health,
    holds,
    inbox,
    items,
    overview,
    preview,
    raw,
    tokens,
)

# The admin's login keeps a throttled client's place in the queue like ours (before admin.site.urls reads it).
admin.site.login = accounts.with_login_ticket(admin.site.login)  # type: ignore[method-assign]

urlpatterns = [
    path("", inbox.inbox_list, name="inbox"),
    path("next/", inbox.next_free, name="next_free"),
    path("items/<uuid:item_id>/", items.item_detail, name="item_detail"),
    path("items/<uuid:item_id>/document/", items.item_document, name="item_document"),
    path("items/<uuid:item_id>/raw/<str:column>/", raw.item_raw, name="item_raw"),
    path("items/<uuid:item_id>/answer/", answers.item_answer, name="item_answer"),
    path("items/<uuid:item_id>/answer/preview/", answers.item_answer_preview, name="item_answer_preview"),
    path("items/<uuid:item_id>/hold/", holds.item_hold, name="item_hold"),
    path("items/<uuid:item_id>/hold/release/", holds.item_hold_release, name="item_hold_release"),
    path("items/<uuid:item_id>/notes/", holds.item_note_add, name="item_note_add"),
    path("answers/bulk/", bulk.bulk_answer, name="answers_bulk"),
    path("overview/", overview.overview_page, name="overview"),
    path("preview/", preview.preview_page, name="preview"),
    path("preview/cases/", golden.golden_case_list, name="golden_cases"),
    path("preview/cases/new/", preview.golden_case_create, name="golden_case_create"),
    path("preview/cases/<int:case_id>/", golden.golden_case_detail, name="golden_case_detail"),
    path("preview/cases/<int:case_id>/accept/", golden.golden_case_accept, name="golden_case_accept"),
    path("preview/cases/<int:case_id>/rename/", golden.golden_case_rename, name="golden_case_rename"),
    path("preview/cases/<int:case_id>/tags/", golden.golden_case_tags, name="golden_case_tags"),
    path("preview/cases/<int:case_id>/delete/", golden.golden_case_delete, name="golden_case_delete"),
    path("api/items", inbox.api_item_list, name="api_items"),
    path("api/items/<uuid:item_id>", items.api_item_detail, name="api_item"),
    path("api/items/<uuid:item_id>/answer", answers.api_item_answer, name="api_item_answer"),
    path("api/items/<uuid:item_id>/hold", holds.api_item_hold, name="api_item_hold"),
    path("api/items/<uuid:item_id>/notes", holds.api_item_notes, name="api_item_notes"),
    path("api/items/<uuid:item_id>/notes/<int:note_id>", holds.api_item_note, name="api_item_note"),
    path("api/answers", bulk.api_answers, name="api_answers"),
    path("api/preview", preview.api_preview, name="api_preview"),
    path("api/overview", overview.api_overview, name="api_overview"),
    path("accounts/login/", accounts.login_view, name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("account/tokens/", tokens.token_list, name="api_tokens"),
    path("account/tokens/<int:token_id>/revoke/", tokens.token_revoke, name="api_token_revoke"),
    path("healthz", health.healthz, name="healthz"),
    path("favicon.ico", health.favicon, name="favicon"),
    path("i18n/", include("django.conf.urls.i18n")),
    path("admin/", admin.site.urls),
]

# Failed admin logins count against the same throttle as the app's login.
admin.site.login_form = accounts.AdminLoginForm
# The 500 page shows the request id; Django's default renders it without context.
handler500 = "reviewapp.web.views.errors.server_error"

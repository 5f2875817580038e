-- One row per (study, judge, judge configuration): the name a study gives each configuration of its
-- judges and which of them the headline tables read. judge_label is the panel member's name
-- ([[judging.panel]] name), else 'prism-released' for PRISM's imported answers, else 'default'.
-- is_headline: in a panel, the primary member's configurations; without one, peerlake's own
-- configurations (provider is not 'imported'), and the imported ones only where the study has none of
-- its own. quality_reviews and quality_comparison read the headline configurations (one per judge), the
-- panel marts (judge_rankings, judge_panel_agreement, …) every one.
with

scopes as (

    select
        study_id,
        judge,
        judge_config,
        any_value(judge_provider) as judge_provider,
        any_value(judge_model) as judge_model,
        any_value(judge_label) as panel_label,
        bool_or(is_primary) as is_primary_member,
        count(*) as n_subjects

    from {{ ref('int_judging_scopes') }}
    group by study_id, judge, judge_config

),

labelled as (

    select
        *,
        coalesce(
            panel_label,
            case when judge_provider = 'imported' then split_part(judge_config, ':', 1) else 'default' end
        ) as judge_label,
        bool_or(panel_label is not null) over (partition by study_id) as has_panel,
        bool_or(coalesce(judge_provider, '') != 'imported') over (partition by study_id, judge) as has_own

    from scopes

),

final as (

    select
        concat_ws('|', study_id, judge_config) as judge_config_id,
        study_id,
        judge,
        judge_config,
        judge_label,
        judge_provider,
        judge_model,
        coalesce(is_primary_member, false) as is_primary,
        case
            when has_panel then coalesce(is_primary_member, false)
            when has_own then coalesce(judge_provider, '') != 'imported'
            else true
        end as is_headline,
        n_subjects

    from labelled

)

select * from final

'use strict';
// django-celery-beat's periodic task form (templates/admin/djcelery/change_periodictask_form.html): under the
// crontab field, what the chosen schedule means in words. Its own version is an inline script the CSP refuses.
(function ($) {
  $(function () {
    const readable = JSON.parse(document.getElementById('readable-crontabs').textContent);
    const help = JSON.parse(document.getElementById('crontab-help').textContent);
    $('.field-crontab_translation').hide();
    $('.field-crontab').change(function () {
      const translation = readable[$('#id_crontab').val()];
      $('.field-crontab .help').text(help).append('<br>', document.createTextNode(`Translation: ${translation}`));
    });
  });
})(django.jQuery);
